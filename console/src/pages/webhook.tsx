import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { DeliveryLog } from '../deliveries.js';
import { useAction, useInterval, useLoad } from '../hooks.js';
import { PagedList, SelectFilter, useLocalPaging } from '../lists.js';
import { Link, navigate } from '../router.js';
import {
  Badge,
  ConfirmButton,
  EmptyState,
  ErrorNotice,
  Facts,
  Field,
  Notice,
  NotLoaded,
  PageHeader,
  SecretOnce,
  Time,
  valueOf,
} from '../ui.js';
import { EventPicker, EVENTS, type EventName } from './webhooks.js';

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** One endpoint: edit, enable or disable, rotate its secret, send a test, its delivery log with redelivery. */
export function WebhookPage(props: { id: string }) {
  const hook = useLoad(
    (signal) => api.get('/api/v1/webhooks/{id}', { params: { path: { id: props.id } }, signal }).then((r) => r.data),
    [props.id],
  );
  const [status, setStatus] = useState('');
  const [event, setEvent] = useState('');
  const pages = useLocalPaging();
  const deliveries = useLoad(
    (signal) =>
      api.get('/api/v1/webhooks/{id}/deliveries', {
        params: {
          path: { id: props.id },
          query: {
            ...(status ? { status: status as (typeof DELIVERY_STATUSES)[number] } : {}),
            ...(event ? { event } : {}),
            ...(pages.cursor ? { cursor: pages.cursor } : {}),
            limit: 20,
          },
        },
        signal,
      }),
    [props.id, status, event, pages.cursor],
  );
  // Attempts still to come: follow them.
  useInterval(
    deliveries.reload,
    3000,
    (deliveries.data?.data ?? []).some((d) => d.status === 'pending'),
  );

  const [draft, setDraft] = useState<{ url: string; description: string; events: EventName[] } | null>(null);
  useEffect(() => {
    if (hook.data)
      setDraft({
        url: hook.data.url,
        description: hook.data.description ?? '',
        events: hook.data.events as EventName[],
      });
  }, [hook.data]);
  const [done, setDone] = useState<string | null>(null);
  const [rotated, setRotated] = useState<{ secret: string; previousSecretExpiresAt: string } | null>(null);

  const save = useAction(async () => {
    await api.patch('/api/v1/webhooks/{id}', {
      params: { path: { id: props.id } },
      body: { url: draft!.url, description: draft!.description || null, events: draft!.events },
    });
    setDone('Saved. The next attempt of every delivery goes to the new URL.');
    hook.reload();
  });
  const setActive = useAction(async (active: boolean) => {
    await api.patch('/api/v1/webhooks/{id}', {
      params: { path: { id: props.id } },
      body: { status: active ? 'active' : 'disabled' },
    });
    setDone(active ? 'Enabled: new events are delivered again.' : 'Disabled: nothing is sent until you enable it.');
    hook.reload();
  });
  const rotate = useAction(async () => {
    const { data } = await api.post('/api/v1/webhooks/{id}/rotate-secret', { params: { path: { id: props.id } } });
    setRotated({ secret: data.secret, previousSecretExpiresAt: data.previousSecretExpiresAt });
    setDone(null);
  });
  const test = useAction(async () => {
    const { data } = await api.post('/api/v1/webhooks/{id}/test', { params: { path: { id: props.id } } });
    setDone(`Test event sent (delivery ${data.deliveryId}); its attempts appear below.`);
    deliveries.reload();
  });
  const remove = useAction(async () => {
    await api.delete('/api/v1/webhooks/{id}', { params: { path: { id: props.id } } });
    navigate('/webhooks');
  });

  const w = hook.data;
  if (!w)
    return (
      <NotLoaded loaded={hook} title="Webhook endpoint" what="the endpoint" back={['/webhooks', 'Back to webhooks']} />
    );
  const errors = [save.error, setActive.error, rotate.error, test.error, remove.error].find(Boolean);
  return (
    <section>
      <PageHeader title={w.description || 'Webhook endpoint'}>
        <p class="lead">
          <Link href="/webhooks">Webhooks</Link> / <code>{w.id}</code> <Badge value={w.status} />
        </p>
      </PageHeader>
      {done && <Notice>{done}</Notice>}
      {rotated && (
        <SecretOnce label="New signing secret" value={rotated.secret}>
          <p>
            Deliveries are signed with both secrets (two <code>v1=</code> values) until{' '}
            <Time value={rotated.previousSecretExpiresAt} />: switch your receiver to the new one before then.
          </p>
        </SecretOnce>
      )}
      <ErrorNotice error={errors} />
      {w.status === 'disabled' && (
        <div class="notice notice-error" role="alert">
          <p>
            <strong>Disabled{w.disabledReason ? `: ${w.disabledReason}` : ''}.</strong> Fix the endpoint, then enable
            it; failed deliveries can be redelivered from the log below.
          </p>
        </div>
      )}
      <Facts
        items={[
          ['URL', <span class="url">{w.url}</span>],
          ['Events', w.events.join(', ')],
          ['Created', <Time value={w.createdAt} />],
          ['Changed', <Time value={w.updatedAt} />],
        ]}
      />
      <div class="actions">
        <button
          type="button"
          class="button-primary"
          disabled={test.busy || w.status !== 'active'}
          onClick={() => void test.run()}
        >
          {test.busy ? 'Sending…' : 'Send a test event'}
        </button>
        <ConfirmButton
          label="Rotate secret"
          title="Rotate the signing secret?"
          confirm="Rotate"
          onConfirm={() => rotate.run()}
        >
          <p>
            A new secret is shown once. The current one keeps signing too, for 24 hours, so your receiver can switch
            without missing a delivery.
          </p>
        </ConfirmButton>
        {w.status === 'active' ? (
          <ConfirmButton
            label="Disable"
            title="Disable this endpoint?"
            confirm="Disable"
            danger
            onConfirm={() => setActive.run(false)}
          >
            <p>Nothing is sent to it until it is enabled again; deliveries due meanwhile fail.</p>
          </ConfirmButton>
        ) : (
          <button type="button" class="button-secondary" onClick={() => void setActive.run(true)}>
            Enable
          </button>
        )}
        <ConfirmButton
          label="Delete"
          title="Delete this endpoint?"
          confirm="Delete"
          danger
          onConfirm={() => remove.run()}
        >
          <p>Its deliveries stop. This cannot be undone.</p>
        </ConfirmButton>
      </div>
      {draft && (
        <form
          class="card"
          aria-labelledby="edit-webhook"
          onSubmit={(e) => {
            e.preventDefault();
            void save.run();
          }}
        >
          <h2 id="edit-webhook">Edit</h2>
          <Field id="edit-url" label="URL">
            <input
              id="edit-url"
              type="url"
              required
              value={draft.url}
              onInput={(e) => setDraft({ ...draft, url: valueOf(e) })}
            />
          </Field>
          <Field id="edit-description" label="Description">
            <input
              id="edit-description"
              maxLength={500}
              value={draft.description}
              onInput={(e) => setDraft({ ...draft, description: valueOf(e) })}
            />
          </Field>
          <EventPicker value={draft.events} onChange={(events) => setDraft({ ...draft, events })} idPrefix="wh-edit" />
          <button type="submit" class="button-primary" disabled={save.busy || draft.events.length === 0}>
            {save.busy ? 'Saving…' : 'Save changes'}
          </button>
        </form>
      )}
      <h2 id="log">Delivery log</h2>
      <form class="filters" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
        <SelectFilter
          id="d-status"
          label="Status"
          value={status}
          values={DELIVERY_STATUSES}
          onChange={(v) => {
            setStatus(v);
            pages.reset();
          }}
        />
        <SelectFilter
          id="d-event"
          label="Event"
          value={event}
          values={[...EVENTS, 'webhook.test']}
          show={(v) => v}
          onChange={(v) => {
            setEvent(v);
            pages.reset();
          }}
        />
      </form>
      <PagedList
        page={deliveries}
        what="deliveries"
        paging={pages.paging}
        empty={
          <EmptyState title="No deliveries">
            <p>
              {status || event
                ? 'None match these filters.'
                : 'Nothing has been sent to this endpoint yet: send a test event to try it.'}
            </p>
          </EmptyState>
        }
      >
        {(rows) => <DeliveryLog deliveries={rows} onChanged={deliveries.reload} />}
      </PagedList>
    </section>
  );
}
