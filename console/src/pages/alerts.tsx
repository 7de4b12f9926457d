import { useState } from 'preact/hooks';
import { api, type Alert } from '../api.js';
import { useAction, useLoad } from '../hooks.js';
import { Link, navigate, queryString, useLocation } from '../router.js';
import { Badge, EmptyState, ErrorNotice, Field, Loading, Notice, PageHeader, Pager, Time, valueOf } from '../ui.js';

const STATUSES = ['unread', 'read', 'acknowledged', 'snoozed', 'dismissed'] as const;
const SEVERITIES = ['critical', 'warning', 'info'] as const;
const SNOOZES = [
  { ms: 3600_000, label: '1 hour' },
  { ms: 4 * 3600_000, label: '4 hours' },
  { ms: 24 * 3600_000, label: '1 day' },
  { ms: 7 * 24 * 3600_000, label: '1 week' },
];

/** Where an alert's source is in the console, when it has a page. */
function sourceLink(a: Alert) {
  if (a.sourceType === 'analysis') return <Link href={`/analyses/${a.sourceId}`}>analysis {a.sourceId}</Link>;
  if (a.sourceType === 'task') return <Link href={`/tasks/${a.sourceId}`}>task {a.sourceId}</Link>;
  if (a.sourceType === 'webhook') return <Link href={`/webhooks/${a.sourceId}`}>webhook {a.sourceId}</Link>;
  return <span>{a.sourceId}</span>;
}

function AlertItem(props: { alert: Alert; onChanged: (message: string) => void }) {
  const a = props.alert;
  const [snooze, setSnooze] = useState(SNOOZES[0]!.ms);
  const change = useAction(
    async (body: { status: 'read' | 'acknowledged' | 'dismissed' | 'snoozed'; snoozeDurationMs?: number }) => {
      await api.patch('/api/v1/alerts/{id}', { params: { path: { id: a.id } }, body });
      props.onChanged(`"${a.title}" ${body.status === 'snoozed' ? 'snoozed' : `marked ${body.status}`}.`);
    },
  );
  const id = `snooze-${a.id}`;
  return (
    <li class={`alert alert-${a.severity}`} data-alert={a.id}>
      <details>
        <summary>
          <Badge value={a.severity} /> <strong>{a.title}</strong> <Badge value={a.status} />{' '}
          <span class="muted">
            <Time value={a.createdAt} />
          </span>
        </summary>
        <p>{a.message}</p>
        <p class="muted">
          From {sourceLink(a)} · {a.type.replace(/_/g, ' ')}
          {a.snoozedUntil && a.status === 'snoozed' && (
            <>
              {' '}
              · back <Time value={a.snoozedUntil} />
            </>
          )}
          {a.actionedAt && (
            <>
              {' '}
              · last changed <Time value={a.actionedAt} /> by {a.actionedBy}
            </>
          )}
        </p>
      </details>
      <div class="actions">
        {a.status !== 'acknowledged' && (
          <button
            type="button"
            class="button-primary"
            disabled={change.busy}
            onClick={() => void change.run({ status: 'acknowledged' })}
          >
            Acknowledge
          </button>
        )}
        <span class="inline-field">
          <label for={id}>Snooze for</label>
          <select id={id} value={snooze} onChange={(e) => setSnooze(Number(valueOf(e)))}>
            {SNOOZES.map((s) => (
              <option key={s.ms} value={s.ms}>
                {s.label}
              </option>
            ))}
          </select>
          <button
            type="button"
            class="button-secondary"
            disabled={change.busy}
            onClick={() => void change.run({ status: 'snoozed', snoozeDurationMs: snooze })}
          >
            Snooze
          </button>
        </span>
        {a.status !== 'dismissed' && (
          <button
            type="button"
            class="button-secondary"
            disabled={change.busy}
            onClick={() => void change.run({ status: 'dismissed' })}
          >
            Dismiss
          </button>
        )}
      </div>
      <ErrorNotice error={change.error} />
    </li>
  );
}

/** Alerts the service raised (failures, low stock, prices, overdue tasks, credits): acknowledge, snooze, dismiss. */
export function AlertsPage() {
  const { query } = useLocation();
  const status = query.get('status') ?? '';
  const severity = query.get('severity') ?? '';
  const cursor = query.get('cursor') ?? undefined;
  const history = (query.get('pages') ?? '').split(',').filter(Boolean);
  const [done, setDone] = useState<string | null>(null);
  const page = useLoad(
    (signal) =>
      api.get('/api/v1/alerts', {
        params: {
          query: {
            ...(status ? { status: status as (typeof STATUSES)[number] } : {}),
            ...(severity ? { severity: severity as (typeof SEVERITIES)[number] } : {}),
            ...(cursor ? { cursor } : {}),
            limit: 25,
          },
        },
        signal,
      }),
    [query.toString()],
  );
  const go = (f: { status: string; severity: string }, c?: string, pages: string[] = []) =>
    navigate(`/alerts${queryString({ ...f, cursor: c, pages: pages.join(',') })}`);
  return (
    <section>
      <PageHeader title="Alerts">
        <p class="lead">What the service noticed and wants someone to look at.</p>
      </PageHeader>
      {done && <Notice>{done}</Notice>}
      <form class="filters" aria-label="Filter alerts" onSubmit={(e) => e.preventDefault()}>
        <Field id="a-status" label="Status">
          <select id="a-status" value={status} onChange={(e) => go({ status: valueOf(e), severity })}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </Field>
        <Field id="a-severity" label="Severity">
          <select id="a-severity" value={severity} onChange={(e) => go({ status, severity: valueOf(e) })}>
            <option value="">Any</option>
            {SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </Field>
      </form>
      <ErrorNotice error={page.error} onRetry={page.reload} />
      {page.loading && !page.data ? (
        <Loading what="alerts" />
      ) : page.data?.data.length === 0 ? (
        <EmptyState title={status || severity ? 'No alert matches these filters' : 'No alerts'}>
          <p>
            {status || severity
              ? 'Clear the filters to see every alert.'
              : 'Nothing needs attention. Alerts appear here when an analysis fails, a shelf misses an item, a price is off, a task is overdue, a webhook is disabled or credits run low.'}
          </p>
        </EmptyState>
      ) : (
        page.data && (
          <>
            <ul class="alerts">
              {page.data.data.map((a) => (
                <AlertItem
                  key={a.id}
                  alert={a}
                  onChanged={(message) => {
                    setDone(message);
                    page.reload();
                  }}
                />
              ))}
            </ul>
            <Pager
              hasMore={page.data.pagination.hasMore}
              next={page.data.pagination.cursor}
              history={history}
              onPage={(c, pages) => go({ status, severity }, c, pages)}
            />
          </>
        )
      )}
    </section>
  );
}
