import { api, type Delivery } from './api.js';
import { useAction } from './hooks.js';
import { Link } from './router.js';
import { Badge, ErrorNotice, ShortId, Time } from './ui.js';

/**
 * Deliveries with every attempt: when, the receiver's status code, how long it took, the error or the
 * start of its answer; and a redelivery (same delivery id) for a finished one. An analysis' log
 * (`analysisId`) redelivers through the analysis, which reaches its callback's deliveries too; a
 * webhook's log through the webhook.
 */
export function DeliveryLog(props: { deliveries: Delivery[]; onChanged: () => void; analysisId?: string }) {
  return (
    <ol class="deliveries">
      {props.deliveries.map((d) => (
        <DeliveryItem key={d.id} delivery={d} onChanged={props.onChanged} analysisId={props.analysisId} />
      ))}
    </ol>
  );
}

function DeliveryItem(props: { delivery: Delivery; onChanged: () => void; analysisId?: string }) {
  const d = props.delivery;
  const { analysisId } = props;
  const redeliver = useAction(async () => {
    if (analysisId)
      await api.post('/api/v1/analyses/{id}/deliveries/{deliveryId}/redeliver', {
        params: { path: { id: analysisId, deliveryId: d.id } },
      });
    else
      await api.post('/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
        params: { path: { id: d.webhookId!, deliveryId: d.id } },
      });
    props.onChanged();
  });
  return (
    <li class="delivery" data-delivery={d.id}>
      <div class="delivery-head">
        <Badge value={d.status} />
        <strong>{d.event}</strong>
        <ShortId id={d.id} />
        {analysisId &&
          (d.webhookId ? (
            <span>
              to webhook <Link href={`/webhooks/${d.webhookId}`}>{d.webhookId}</Link>
            </span>
          ) : (
            <span>to the analysis' callback URL</span>
          ))}
        <span class="muted">
          {d.attemptCount} attempt{d.attemptCount === 1 ? '' : 's'}
          {d.nextAttemptAt && (
            <>
              , next <Time value={d.nextAttemptAt} />
            </>
          )}
        </span>
        {(analysisId || d.webhookId) && d.status !== 'pending' && (
          <button type="button" class="button-secondary" disabled={redeliver.busy} onClick={() => void redeliver.run()}>
            {redeliver.busy ? 'Redelivering…' : 'Redeliver'}
          </button>
        )}
      </div>
      <ErrorNotice error={redeliver.error} />
      {d.attempts.length > 0 && (
        <table class="attempts">
          <caption class="visually-hidden">Attempts of delivery {d.id}</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Sent</th>
              <th scope="col">Status</th>
              <th scope="col">Latency</th>
              <th scope="col">Error or answer</th>
            </tr>
          </thead>
          <tbody>
            {d.attempts.map((a) => (
              <tr key={a.attempt} class={a.succeeded ? '' : 'attempt-failed'}>
                <td data-label="#">{a.attempt}</td>
                <td data-label="Sent">
                  <Time value={a.startedAt} />
                </td>
                <td data-label="Status">{a.statusCode ?? <span class="muted">no answer</span>}</td>
                <td data-label="Latency">{a.durationMs} ms</td>
                <td data-label="Error or answer" class="excerpt">
                  {a.error ?? (a.responseExcerpt ? <code>{a.responseExcerpt.slice(0, 300)}</code> : '')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}
