import { useState } from 'preact/hooks';
import { api, type AnalysisRow } from '../api.js';
import { useLoad } from '../hooks.js';
import { PagedList, SelectFilter, useListQuery, type Column } from '../lists.js';
import { Link } from '../router.js';
import { Badge, EmptyState, Field, PageHeader, ShortId, Time, valueOf } from '../ui.js';

const STATUSES = ['processing', 'completed', 'failed'] as const;

/** The day after a YYYY-MM-DD date: "to 3 November" includes all of the 3rd. */
const dayAfter = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The list's columns. */
const columns = (placeName: (id: string | null) => string | null): Column<AnalysisRow>[] => [
  {
    label: 'Analysis',
    cell: (a) => (
      <Link href={`/analyses/${a.id}`}>
        <ShortId id={a.id} />
      </Link>
    ),
  },
  { label: 'Status', cell: (a) => <Badge value={a.status} /> },
  { label: 'Submitted', cell: (a) => <Time value={a.createdAt} /> },
  { label: 'External id', cell: (a) => a.externalId ?? <span class="muted">—</span> },
  { label: 'Place', cell: (a) => placeName(a.placeId) ?? <span class="muted">—</span> },
  { label: 'Finished', cell: (a) => <Time value={a.completedAt} empty="not yet" /> },
];

/**
 * Analyses, newest first, filtered as the API filters them (status, external id, place, date), a page
 * at a time. The filters and the page are in the URL: reload, back and shared links keep them.
 */
export function AnalysesPage() {
  const list = useListQuery('/analyses');
  const filters = {
    status: list.get('status'),
    externalId: list.get('externalId'),
    placeId: list.get('placeId'),
    from: list.get('from'),
    to: list.get('to'),
  };
  const { cursor } = list;
  const [draft, setDraft] = useState(filters);
  const places = useLoad(
    (signal) => api.get('/api/v1/places', { params: { query: { limit: 100 } }, signal }).then((r) => r.data),
    [],
  );
  const page = useLoad(
    (signal) =>
      api.get('/api/v1/analyses', {
        params: {
          query: {
            ...(filters.status ? { status: filters.status as (typeof STATUSES)[number] } : {}),
            ...(filters.externalId ? { externalId: filters.externalId } : {}),
            ...(filters.placeId ? { placeId: filters.placeId } : {}),
            ...(filters.from ? { createdAfter: filters.from } : {}),
            ...(filters.to ? { createdBefore: dayAfter(filters.to) } : {}),
            ...(cursor ? { cursor } : {}),
            limit: 25,
          },
        },
        signal,
      }),
    [list.key],
  );
  const filtered = Object.values(filters).some(Boolean);
  const placeName = (id: string | null) => (id ? (places.data?.find((p) => p.id === id)?.title ?? id) : null);

  return (
    <section>
      <PageHeader title="Analyses">
        <p class="lead">Every shelf photo submitted through the API, newest first.</p>
      </PageHeader>
      <form
        class="filters"
        aria-label="Filter analyses"
        onSubmit={(e) => {
          e.preventDefault();
          list.go(draft);
        }}
      >
        <SelectFilter
          id="f-status"
          label="Status"
          value={draft.status}
          values={STATUSES}
          onChange={(status) => setDraft({ ...draft, status })}
        />
        <Field id="f-external" label="External id">
          <input
            id="f-external"
            value={draft.externalId}
            onInput={(e) => setDraft({ ...draft, externalId: valueOf(e) })}
          />
        </Field>
        <Field id="f-place" label="Place">
          <select id="f-place" value={draft.placeId} onChange={(e) => setDraft({ ...draft, placeId: valueOf(e) })}>
            <option value="">Any</option>
            {places.data?.map((p) => (
              <option key={p.id} value={p.id}>
                {p.title}
              </option>
            ))}
          </select>
        </Field>
        <Field id="f-from" label="From">
          <input id="f-from" type="date" value={draft.from} onInput={(e) => setDraft({ ...draft, from: valueOf(e) })} />
        </Field>
        <Field id="f-to" label="To">
          <input id="f-to" type="date" value={draft.to} onInput={(e) => setDraft({ ...draft, to: valueOf(e) })} />
        </Field>
        <div class="filter-actions">
          <button type="submit" class="button-primary">
            Filter
          </button>
          {filtered && (
            <button
              type="button"
              class="button-secondary"
              onClick={() => {
                const empty = { status: '', externalId: '', placeId: '', from: '', to: '' };
                setDraft(empty);
                list.go(empty);
              }}
            >
              Clear
            </button>
          )}
        </div>
      </form>
      <PagedList
        page={page}
        what="analyses"
        paging={list.paging(filters)}
        empty={
          filtered ? (
            <EmptyState title="No analysis matches these filters">
              <p>Widen the dates, or clear the filters to see every analysis.</p>
            </EmptyState>
          ) : (
            <EmptyState title="No analyses yet">
              <p>
                Submit a shelf photo with the API (an API key from the <Link href="/api-keys">API keys</Link> page, or
                ask an owner for one):
              </p>
              <pre>
                <code>{`curl -X POST ${location.origin}/api/v1/analyses \\
  -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\
  -d '{"imageUrl":"https://example.com/shelf.jpg"}'`}</code>
              </pre>
              <p>
                It appears here within a second; the <a href="/api/v1/docs">API reference</a> has the rest.
              </p>
            </EmptyState>
          )
        }
        table={{ caption: 'Analyses', columns: columns(placeName) }}
      />
    </section>
  );
}
