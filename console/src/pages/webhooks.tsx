import { useState } from 'preact/hooks';
import { api, type WebhookRow } from '../api.js';
import { useAction, useLoad } from '../hooks.js';
import { ListStates, type Column } from '../lists.js';
import { Link } from '../router.js';
import { Badge, EmptyState, ErrorNotice, Field, PageHeader, SecretOnce, ShortId, Time, valueOf } from '../ui.js';

export const EVENTS = [
  'analysis.completed',
  'analysis.failed',
  'task.created',
  'task.updated',
  'task.completed',
] as const;
export type EventName = (typeof EVENTS)[number] | '*';

/** Which events: every one (`*`), or some. */
export function EventPicker(props: { value: EventName[]; onChange: (v: EventName[]) => void; idPrefix: string }) {
  const all = props.value.includes('*');
  return (
    <fieldset class="events">
      <legend>Events</legend>
      <label>
        <input
          type="checkbox"
          checked={all}
          onChange={(e) => props.onChange(e.currentTarget.checked ? ['*'] : [])}
          id={`${props.idPrefix}-all`}
        />{' '}
        All events (<code>*</code>), including ones added later
      </label>
      {EVENTS.map((event) => (
        <label key={event}>
          <input
            type="checkbox"
            disabled={all}
            checked={all || props.value.includes(event)}
            onChange={(e) =>
              props.onChange(e.currentTarget.checked ? [...props.value, event] : props.value.filter((v) => v !== event))
            }
          />{' '}
          <code>{event}</code>
        </label>
      ))}
    </fieldset>
  );
}

/** The list's columns. */
const COLUMNS: Column<WebhookRow>[] = [
  {
    label: 'Endpoint',
    cell: (w) => (
      <>
        <Link href={`/webhooks/${w.id}`}>{w.description || w.url}</Link>
        <div class="muted url">
          <ShortId id={w.id} /> {w.url}
        </div>
      </>
    ),
  },
  {
    label: 'Status',
    cell: (w) => (
      <>
        <Badge value={w.status} />
        {w.disabledReason && <div class="muted">{w.disabledReason}</div>}
      </>
    ),
  },
  { label: 'Events', cell: (w) => w.events.join(', ') },
  { label: 'Created', cell: (w) => <Time value={w.createdAt} /> },
];

export function WebhooksPage() {
  const list = useLoad(
    (signal) => api.get('/api/v1/webhooks', { params: { query: { limit: 100 } }, signal }).then((r) => r.data),
    [],
  );
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<EventName[]>(['analysis.completed', 'analysis.failed']);
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  const create = useAction(async () => {
    const { data } = await api.post('/api/v1/webhooks', {
      body: { url, events, ...(description ? { description } : {}) },
    });
    setCreated({ id: data.id, secret: data.secret });
    setUrl('');
    setDescription('');
    list.reload();
  });
  return (
    <section>
      <PageHeader title="Webhooks">
        <p class="lead">
          Endpoints the service POSTs signed events to (<code>X-Service-Signature</code>: HMAC-SHA256 of{' '}
          <code>t.body</code> with the endpoint's secret).
        </p>
      </PageHeader>
      {created && (
        <SecretOnce label="Signing secret of the new endpoint" value={created.secret}>
          <p>
            Verify every delivery with it. <Link href={`/webhooks/${created.id}`}>Open the endpoint</Link> to send a
            test event.
          </p>
        </SecretOnce>
      )}
      <ListStates
        loaded={list}
        rows={list.data}
        what="webhooks"
        empty={
          <EmptyState title="No webhook endpoints yet">
            <p>
              Add one below to be told when analyses finish, instead of polling. Its URL must answer 2xx within 15
              seconds.
            </p>
          </EmptyState>
        }
        table={{ caption: 'Webhook endpoints', columns: COLUMNS }}
      />
      <form
        class="card"
        aria-labelledby="new-webhook"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <h2 id="new-webhook">Add an endpoint</h2>
        <Field id="wh-url" label="URL" hint="HTTPS; it receives a POST per event.">
          <input
            id="wh-url"
            type="url"
            required
            placeholder="https://hooks.example.com/shelf"
            aria-describedby="wh-url-hint"
            value={url}
            onInput={(e) => setUrl(valueOf(e))}
          />
        </Field>
        <Field id="wh-description" label="Description (optional)">
          <input id="wh-description" maxLength={500} value={description} onInput={(e) => setDescription(valueOf(e))} />
        </Field>
        <EventPicker value={events} onChange={setEvents} idPrefix="wh-new" />
        <ErrorNotice error={create.error} />
        <button type="submit" class="button-primary" disabled={create.busy || events.length === 0}>
          {create.busy ? 'Adding…' : 'Add endpoint'}
        </button>
      </form>
    </section>
  );
}
