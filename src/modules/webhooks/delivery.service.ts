import type { EntityManager } from '@mikro-orm/postgresql';
import { SealedString } from '../../db/sealed-string-type.js';
import { refusedData } from '../../db/refused-data.js';
import { storableText } from '../../lib/text.js';
import type { Logger } from '../../lib/logger.js';
import { publicOutboundError } from '../../lib/outbound/public-error.js';
import { outboundRequest } from '../../lib/outbound/http-client.js';
import type { AlertService } from '../alerts/alert.service.js';
import { Delivery } from './delivery.entity.js';
import { signatureHeader } from './signature.js';
import type { AttemptOutcome } from '../../temporal/contracts/delivery.js';
import { metrics, statusClass } from '../../lib/metrics.js';
import type { DeliveryRepository } from './delivery.repository.js';
import { Webhook } from './webhook.entity.js';
import type { WebhookRepository } from './webhook.repository.js';

export const USER_AGENT = 'Service-Webhooks/1.0';
const EXCERPT_BYTES = 2048;

export type DeliveryRef = { id: string; organisationId: string; webhookId: string | null; eventType: string };

export type DeliveryOptions = { timeoutMs: number; allowPrivate: boolean; disableAfterMs: number };

/**
 * The body every attempt of a delivery sends, byte for byte (only the signature's `t` changes). It
 * carries the delivery id: the spec signs `<t>.<body>` only, so an id in the X-Service-Delivery header
 * alone was unsigned, and a captured delivery replayed under a new id passed verification and a
 * receiver's de-duplication (issue 36; docs/decisions.md, Webhooks).
 */
export function deliveryBody(
  event: { type: string; data: unknown; createdAt: Date },
  webhookId: string | null,
  deliveryId: string,
): string {
  return JSON.stringify({
    event: event.type,
    data: event.data,
    timestamp: event.createdAt.toISOString(),
    webhookId,
    deliveryId,
  });
}

function retryAfterMs(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

const ALREADY_FINISHED = Symbol('already finished');

/** How long an answered attempt keeps trying to record itself (a restart or failover of PostgreSQL). */
const RECORD_PERSIST_MS = 25_000;

/**
 * Runs `record` (idempotent: it only upserts this attempt and sets statuses) until it succeeds, for
 * up to RECORD_PERSIST_MS within the activity's 45 s: the database briefly unreachable after the
 * receiver answered costs a wait, not a second POST. Past that, or for a refused write, it throws.
 */
async function recordPersistently<T>(
  deliveryId: string,
  logger: Logger | undefined,
  record: () => Promise<T>,
): Promise<T> {
  const until = Date.now() + RECORD_PERSIST_MS;
  // The first retry at once: after a PostgreSQL restart the pool's connections are dead and fail
  // the record instantly, and a new one may already work; the backoff is for the database down.
  for (let wait = 0; ; wait = Math.min(Math.max(wait * 2, 250), 4000)) {
    try {
      return await record();
    } catch (err) {
      if (refusedData(err) || Date.now() + wait > until) throw err;
      logger?.warn({ err, deliveryId }, 'recording an answered delivery attempt failed; trying again');
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** A secret column read by SQL rather than through its entity: opened as the entity would (SealedString). */
const sealed = new SealedString();
const opened = (value: string | null): string | null => sealed.convertToJSValue(value);

export class DeliveryService {
  constructor(
    private readonly em: EntityManager,
    private readonly alerts: AlertService,
    private readonly logger?: Logger,
  ) {}

  /**
   * One delivery per matching active endpoint (and the analysis' callback URL), created
   * idempotently: a retried fan-out finds the deliveries the first one made.
   */
  async fanOut(
    eventId: string,
    onlyWebhookId?: string,
    { markDispatched = false }: { markDispatched?: boolean } = {},
  ): Promise<DeliveryRef[]> {
    // Three statements and no transaction around them: the targets, one insert (one statement, so
    // one commit, and its conflict target makes a repeat or a racing dispatcher a no-op), then the
    // deliveries read back in a fresh snapshot, which sees a racing dispatcher's rows too. It was a
    // transaction of six or more round trips, on the path every analysis.completed webhook waits on.
    // `markDispatched` (the analysis' own fan-out, deliverFirst) marks the event in the insert's
    // statement, and does not wait for that commit's flush to disk (D295): the first attempt's claim,
    // a synchronous commit, flushes it before any POST; lost to a crash of PostgreSQL before that, the
    // deliveries and the mark are lost together, and the relay dispatches the event again.
    const targets = await this.em
      .getRepository<Delivery, DeliveryRepository>(Delivery)
      .fanOutTargets(eventId, onlyWebhookId);
    const event = targets[0];
    if (!event) throw new Error(`event ${eventId} not found`);
    const rows = targets.filter((t) => t.target !== null);
    if (rows.length > 0 || markDispatched)
      await this.em
        .getRepository<Delivery, DeliveryRepository>(Delivery)
        .insertPending(event, eventId, rows, { markDispatched });
    const found = await this.em.getRepository<Delivery, DeliveryRepository>(Delivery).ofEvent(eventId, onlyWebhookId);
    return found.map((r) => ({
      id: r.id,
      organisationId: r.organisation_id,
      webhookId: r.webhook_id,
      eventType: r.event_type,
    }));
  }

  /**
   * One attempt: claim the next attempt number, POST the signed body, record the attempt, and say
   * what the workflow should do next. Never throws for what the receiver did; only for our own I/O.
   */
  async attempt(deliveryId: string, nextDelayMs: number | null, opts: DeliveryOptions): Promise<AttemptOutcome> {
    const outcome = await this.attemptOnce(deliveryId, nextDelayMs, opts);
    if (outcome === ALREADY_FINISHED) return this.finished(deliveryId);
    return counted(outcome);
  }

  /**
   * The first attempt made by the analysis that raised the event, before any delivery workflow exists
   * (deliverEvents, D273): the same attempt, claimed only if no attempt was ever made (so a retried
   * call never POSTs again: what it made is its workflow's to follow up) and the endpoint is not in a
   * failing run. `left`: not made here; the delivery's workflow goes on from `attempts`, after `waitMs`.
   */
  async firstAttempt(
    deliveryId: string,
    nextDelayMs: number | null,
    opts: DeliveryOptions,
  ): Promise<AttemptOutcome | { outcome: 'left'; attempts: number; waitMs: number }> {
    const outcome = await this.attemptOnce(deliveryId, nextDelayMs, opts, true);
    if (outcome !== ALREADY_FINISHED) return counted(outcome);
    const state = await this.em.getRepository<Delivery, DeliveryRepository>(Delivery).state(deliveryId);
    if (!state) throw new Error(`delivery ${deliveryId} not found`);
    if (state.status !== 'pending') return this.finished(deliveryId);
    const at = state.next_attempt_at ? new Date(state.next_attempt_at).getTime() : 0;
    return { outcome: 'left', attempts: state.attempt_count, waitMs: Math.max(0, at - Date.now()) };
  }

  /** What an earlier run of the attempt recorded, answered again (a finished delivery is never POSTed). */
  private async finished(deliveryId: string): Promise<AttemptOutcome> {
    const d = await this.em.findOneOrFail(Delivery, { id: deliveryId }, { refresh: true });
    if (d.status === 'succeeded')
      return { outcome: 'succeeded', attempt: d.attemptCount, status: d.lastStatusCode ?? 200 };
    return {
      outcome: d.lastStatusCode === 410 ? 'gone' : 'abandoned',
      attempt: d.attemptCount,
      status: d.lastStatusCode ?? null,
    };
  }

  private async attemptOnce(
    deliveryId: string,
    nextDelayMs: number | null,
    opts: DeliveryOptions,
    firstOnly = false,
  ): Promise<AttemptOutcome | typeof ALREADY_FINISHED> {
    const em = this.em;
    // One statement claims the attempt number and reads all the attempt needs (event, endpoint,
    // secrets): it was four round trips before the POST, on the path every webhook waits on. Only
    // a pending delivery is claimed. A finished one means this is a retry of an attempt that
    // recorded its outcome but could not report it (the Temporal server restarted, or the worker
    // died, just after): POSTing again would repeat a delivery already acknowledged.
    const claim = await em
      .getRepository<Delivery, DeliveryRepository>(Delivery)
      .claimAttempt(deliveryId, { firstOnly });
    if (!claim) return ALREADY_FINISHED;
    const attempt = claim.attempt_count;
    if (claim.webhook_id && claim.webhook_status !== 'active') {
      await this.finish(deliveryId, 'failed', null);
      return { outcome: 'abandoned', attempt, status: null };
    }
    if (claim.event_type === null) throw new Error(`event of delivery ${deliveryId} not found`);
    const secrets: string[] = [];
    if (claim.webhook_id) {
      secrets.push(opened(claim.secret)!);
      const previous = opened(claim.previous_secret);
      if (previous && claim.previous_secret_expires_at && new Date(claim.previous_secret_expires_at) > new Date())
        secrets.push(previous);
    } else {
      const callbackSecret = opened(claim.callback_secret);
      if (!callbackSecret) throw new Error(`callback secret of delivery ${deliveryId} not found`);
      secrets.push(callbackSecret);
    }
    const eventType = claim.event_type;
    const body = deliveryBody(
      { type: eventType, data: claim.event_data, createdAt: new Date(claim.event_created_at!) },
      claim.webhook_id,
      deliveryId,
    );
    const t = Math.floor(Date.now() / 1000);
    const started = new Date();
    let status: number | null = null;
    let error: string | null = null;
    let excerpt: string | null = null;
    let retryAfter: number | null = null;
    try {
      // The endpoint's URL now, not when the delivery was created: a changed URL takes effect at the
      // next attempt (retries and redeliveries included). Callbacks keep their analysis' URL.
      const res = await outboundRequest((claim.webhook_id ? claim.webhook_url : claim.url)!, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'x-service-signature': signatureHeader(secrets, t, body),
          'x-service-event': eventType,
          'x-service-delivery': deliveryId,
        },
        timeoutMs: opts.timeoutMs,
        maxBytes: EXCERPT_BYTES,
        onOversize: 'truncate',
        // A 2xx is recorded as soon as its status line is here: a worker killed between the
        // receiver's answer and our record of it sends the delivery again (same id), so nothing but
        // what must happen stands between them, least of all a body that is slow to come.
        answerOnStatus: true,
        maxRedirects: 0,
        allowPrivate: opts.allowPrivate,
      });
      status = res.status;
      // Kept as the receiver sent it, except what PostgreSQL cannot hold (a binary body's NUL bytes):
      // recording this answer must not fail, or the retry would POST an acknowledged delivery again.
      excerpt = storableText(res.body.toString('utf8'));
      if (status === 429 || status === 503) retryAfter = retryAfterMs(res.headers['retry-after']);
    } catch (err) {
      error = publicOutboundError(err);
      this.logger?.warn({ err, deliveryId }, 'delivery attempt failed before an answer');
    }
    const ok = status !== null && status >= 200 && status < 300;
    const row = [deliveryId, attempt, started, Date.now() - started.getTime(), status, error, excerpt, ok];
    const webhookId = claim.webhook_id;
    // The receiver has answered: from here on a failure of ours must not make the activity fail, or
    // its retry would POST again and a 2xx already given would be followed by a second delivery.
    return recordPersistently(deliveryId, this.logger, async (): Promise<AttemptOutcome> => {
      if (ok) {
        // The common case in one statement, so one commit: the attempt, the delivery finished, the
        // endpoint's failing run (if any) ended.
        await em
          .getRepository<Delivery, DeliveryRepository>(Delivery)
          .recordSuccess(deliveryId, row, status!, webhookId);
        return { outcome: 'succeeded', attempt, status: status! };
      }
      await em.getRepository<Delivery, DeliveryRepository>(Delivery).recordAttempt(row);
      if (status === 410) {
        await this.finish(deliveryId, 'failed', status);
        if (webhookId) await this.disable(webhookId, 'endpoint answered 410 Gone');
        return { outcome: 'gone', attempt, status };
      }
      if (webhookId) {
        const failing = await em.getRepository<Webhook, WebhookRepository>(Webhook).markFailing(webhookId);
        if (failing && Date.now() - new Date(failing.failing_since).getTime() >= opts.disableAfterMs) {
          await this.finish(deliveryId, 'failed', status);
          await this.disable(webhookId, 'every delivery failed for 5 days');
          return { outcome: 'abandoned', attempt, status };
        }
      }
      if (nextDelayMs === null) {
        await this.finish(deliveryId, 'failed', status);
        return { outcome: 'abandoned', attempt, status };
      }
      const wait = Math.max(nextDelayMs, retryAfter ?? 0);
      await em
        .getRepository<Delivery, DeliveryRepository>(Delivery)
        .scheduleRetry(deliveryId, status, new Date(Date.now() + wait));
      return { outcome: 'retry', attempt, status, retryAfterMs: retryAfter };
    });
  }

  private async finish(deliveryId: string, status: 'succeeded' | 'failed', code: number | null) {
    await this.em.getRepository<Delivery, DeliveryRepository>(Delivery).finish(deliveryId, status, code);
  }

  private async disable(webhookId: string, reason: string) {
    await this.em.transactional(async (em) => {
      const row = await em.getRepository<Webhook, WebhookRepository>(Webhook).disable(webhookId, reason);
      if (!row) return;
      // Alerts are read with the read role, an endpoint's URL only with admin (it often carries a
      // token in its path or query): the alert names the endpoint by id and host, nothing more.
      const host = new URL(row.url).host;
      await this.alerts.raise(em, {
        organisationId: row.organisation_id,
        type: 'webhook_disabled',
        severity: 'critical',
        title: 'Webhook endpoint disabled',
        message: `Deliveries to webhook ${webhookId} (${host}) stopped: ${reason}. Fix the endpoint and set its status back to active.`,
        sourceType: 'webhook',
        sourceId: webhookId,
        metadata: { webhookId, host, reason },
        dedupeKey: `webhook_disabled:${webhookId}:${Date.now()}`,
      });
    });
  }
}

/** An attempt made (not one answered again from its record), counted by outcome. */
function counted(outcome: AttemptOutcome): AttemptOutcome {
  metrics.webhookAttempts.inc({ outcome: outcome.outcome, status_class: statusClass(outcome.status) });
  return outcome;
}
