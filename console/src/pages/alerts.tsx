import { useState } from 'preact/hooks';
import { api, type Alert } from '../api.js';
import { useAction, useLoad, useRecord } from '../hooks.js';
import { PagedList, SelectFilter, useListQuery } from '../lists.js';
import { Link } from '../router.js';
import { useSession } from '../session.js';
import { Badge, EmptyState, ErrorNotice, Facts, Notice, NotLoaded, PageHeader, Time, valueOf } from '../ui.js';

const STATUSES = ['unread', 'read', 'acknowledged', 'snoozed', 'dismissed'] as const;
const SEVERITIES = ['critical', 'warning', 'info'] as const;
const SNOOZES = [
  { ms: 3600_000, label: '1 hour' },
  { ms: 4 * 3600_000, label: '4 hours' },
  { ms: 24 * 3600_000, label: '1 day' },
  { ms: 7 * 24 * 3600_000, label: '1 week' },
];
type Change = { status: 'read' | 'acknowledged' | 'dismissed' | 'snoozed'; snoozeDurationMs?: number };

/** Where an alert's source is in the console, when it has a page. */
function sourceLink(a: Alert) {
  if (a.sourceType === 'analysis') return <Link href={`/analyses/${a.sourceId}`}>analysis {a.sourceId}</Link>;
  if (a.sourceType === 'task') return <Link href={`/tasks/${a.sourceId}`}>task {a.sourceId}</Link>;
  if (a.sourceType === 'webhook') return <Link href={`/webhooks/${a.sourceId}`}>webhook {a.sourceId}</Link>;
  return <span>{a.sourceId}</span>;
}

/** Who changed it last: "you", or the member's or key's id. */
const who = (id: string | null, me: string) => (id === me ? 'you' : id);

/**
 * What can be done with an alert, the same in the list and on its page: acknowledge, snooze for a
 * while (it comes back as unread), dismiss. `onChanged` is told what was done, to say so.
 */
function AlertActions(props: { alert: Alert; onChanged: (message: string) => void }) {
  const a = props.alert;
  const [snooze, setSnooze] = useState(SNOOZES[0]!.ms);
  const change = useAction(async (body: Change) => {
    await api.patch('/api/v1/alerts/{id}', { params: { path: { id: a.id } }, body });
    props.onChanged(`"${a.title}" ${body.status === 'snoozed' ? 'snoozed' : `marked ${body.status}`}.`);
  });
  const id = `snooze-${a.id}`;
  return (
    <>
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
    </>
  );
}

function AlertItem(props: { alert: Alert; onChanged: (message: string) => void }) {
  const a = props.alert;
  return (
    <li class={`alert alert-${a.severity}`} data-alert={a.id}>
      <p class="alert-head">
        <Badge value={a.severity} /> <Link href={`/alerts/${a.id}`}>{a.title}</Link> <Badge value={a.status} />{' '}
        <span class="muted">
          <Time value={a.createdAt} />
        </span>
      </p>
      <p class="alert-message">{a.message}</p>
      <AlertActions alert={a} onChanged={props.onChanged} />
    </li>
  );
}

/** Alerts the service raised (failures, low stock, prices, overdue tasks, credits): acknowledge, snooze, dismiss. */
export function AlertsPage() {
  const list = useListQuery('/alerts');
  const status = list.get('status');
  const severity = list.get('severity');
  const { cursor } = list;
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
    [list.key],
  );
  return (
    <section>
      <PageHeader title="Alerts">
        <p class="lead">What the service noticed and wants someone to look at.</p>
      </PageHeader>
      {done && <Notice>{done}</Notice>}
      <form class="filters" aria-label="Filter alerts" onSubmit={(e) => e.preventDefault()}>
        <SelectFilter
          id="a-status"
          label="Status"
          value={status}
          values={STATUSES}
          onChange={(v) => list.go({ status: v, severity })}
        />
        <SelectFilter
          id="a-severity"
          label="Severity"
          value={severity}
          values={SEVERITIES}
          onChange={(v) => list.go({ status, severity: v })}
        />
      </form>
      <PagedList
        page={page}
        what="alerts"
        paging={list.paging({ status, severity })}
        empty={
          <EmptyState title={status || severity ? 'No alert matches these filters' : 'No alerts'}>
            <p>
              {status || severity
                ? 'Clear the filters to see every alert.'
                : 'Nothing needs attention. Alerts appear here when an analysis fails, a shelf misses an item, a price is off, a task is overdue, a webhook is disabled or credits run low.'}
            </p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ul class="alerts">
            {rows.map((a) => (
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
        )}
      </PagedList>
    </section>
  );
}

/** One alert: what it says, where it came from, what was done about it, and the same actions as the list. */
export function AlertPage(props: { id: string }) {
  const { session } = useSession();
  const alert = useRecord(props.id, (id, signal) =>
    api.get('/api/v1/alerts/{id}', { params: { path: { id } }, signal }),
  );
  const [done, setDone] = useState<string | null>(null);
  const a = alert.data;
  if (!a) return <NotLoaded loaded={alert} title="Alert" what="the alert" back={['/alerts', 'Back to alerts']} />;
  const details = Object.entries(a.metadata).filter(([, v]) => v !== null && typeof v !== 'object');
  return (
    <section>
      <PageHeader title={a.title}>
        <p class="lead">
          <Link href="/alerts">Alerts</Link> / <code>{a.id}</code> <Badge value={a.severity} />{' '}
          <Badge value={a.status} />
        </p>
      </PageHeader>
      {done && <Notice>{done}</Notice>}
      <p class="alert-message">{a.message}</p>
      <Facts
        items={[
          ['Kind', a.type.replace(/_/g, ' ')],
          ['From', sourceLink(a)],
          ['Raised', <Time value={a.createdAt} />],
          [
            'Snoozed until',
            a.status === 'snoozed' && a.snoozedUntil ? (
              <>
                <Time value={a.snoozedUntil} /> (then unread again)
              </>
            ) : null,
          ],
          [
            'Last changed',
            a.actionedAt && (
              <>
                <Time value={a.actionedAt} /> by {who(a.actionedBy, session.member.userId)}
              </>
            ),
          ],
          ...details.map(([k, v]): [string, string] => [
            k.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase(),
            String(v),
          ]),
        ]}
      />
      <AlertActions
        alert={a}
        onChanged={(message) => {
          setDone(message);
          alert.reload();
        }}
      />
    </section>
  );
}
