import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { useAction, useLoad } from '../hooks.js';
import { Link } from '../router.js';
import {
  Badge,
  EmptyState,
  ErrorNotice,
  Field,
  Loading,
  PageHeader,
  SecretOnce,
  ShortId,
  Time,
  valueOf,
} from '../ui.js';

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
      <ErrorNotice error={list.error} onRetry={list.reload} />
      {list.loading && !list.data ? (
        <Loading what="webhooks" />
      ) : list.data?.length === 0 ? (
        <EmptyState title="No webhook endpoints yet">
          <p>
            Add one below to be told when analyses finish, instead of polling. Its URL must answer 2xx within 15
            seconds.
          </p>
        </EmptyState>
      ) : (
        list.data && (
          <table class="list">
            <caption class="visually-hidden">Webhook endpoints</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Status</th>
                <th scope="col">Events</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((w) => (
                <tr key={w.id}>
                  <td data-label="Endpoint">
                    <Link href={`/webhooks/${w.id}`}>{w.description || w.url}</Link>
                    <div class="muted url">
                      <ShortId id={w.id} /> {w.url}
                    </div>
                  </td>
                  <td data-label="Status">
                    <Badge value={w.status} />
                    {w.disabledReason && <div class="muted">{w.disabledReason}</div>}
                  </td>
                  <td data-label="Events">{w.events.join(', ')}</td>
                  <td data-label="Created">
                    <Time value={w.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      )}
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
