import type { EntityManager } from '@mikro-orm/postgresql';
import { SealedString } from '../../db/sealed-string-type.js';
import { sql } from '../../db/sql.js';
import { refusedData } from '../../db/refused-data.js';
import { newId } from '../../lib/ids.js';
import { storableText } from '../../lib/text.js';
import type { Logger } from '../../lib/logger.js';
import { publicOutboundError } from '../../lib/outbound/public-error.js';
import { outboundRequest } from '../../lib/outbound/http-client.js';
import type { AlertService } from '../alerts/alert.service.js';
import { Delivery } from './delivery.entity.js';
import { signatureHeader } from './signature.js';
import type { AttemptOutcome } from '../../temporal/contracts/delivery.js';
import { metrics, statusClass } from '../../lib/metrics.js';

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

/** What an attempt's one claiming statement reads (attemptOnce). */
type Claim = {
  attempt_count: number;
  webhook_id: string | null;
  url: string | null;
  event_type: string | null;
  event_data: unknown;
  event_created_at: Date | string | null;
  webhook_status: string | null;
  webhook_url: string | null;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_expires_at: Date | string | null;
  callback_secret: string | null;
};

/** A secret column read by SQL rather than through its entity: opened as the entity would (SealedString). */
const sealed = new SealedString();
const opened = (value: string | null): string | null => sealed.convertToJSValue(value);

/** An attempt's row; idempotent, so recording it again (recordPersistently) changes nothing. */
const RECORD_ATTEMPT = `insert into delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, response_excerpt, succeeded)
  values (?, ?, ?, ?, ?, ?, ?, ?)
  on conflict (delivery_id, attempt) do update set started_at = excluded.started_at, duration_ms = excluded.duration_ms,
    status_code = excluded.status_code, error = excluded.error, response_excerpt = excluded.response_excerpt,
    succeeded = excluded.succeeded`;

/** A delivery finished: its status, its last status code (kept if none), no further attempt. */
const FINISH = `update deliveries set status = ?, last_status_code = coalesce(?, last_status_code), next_attempt_at = null,
  completed_at = now(), updated_at = now() where id = ?`;

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
  async fanOut(eventId: string, onlyWebhookId?: string): Promise<DeliveryRef[]> {
    // Three statements and no transaction around them: the targets, one insert (one statement, so
    // one commit, and its conflict target makes a repeat or a racing dispatcher a no-op), then the
    // deliveries read back in a fresh snapshot, which sees a racing dispatcher's rows too. It was a
    // transaction of six or more round trips, on the path every analysis.completed webhook waits on.
    const targets = await sql<{
      organisation_id: string;
      type: string;
      target: string | null;
      url: string | null;
      webhook_id: string | null;
      analysis_id: string | null;
    }>(
      this.em,
      `select e.organisation_id, e.type, t.target, t.url, t.webhook_id, t.analysis_id
         from events e
         left join lateral (
           select 'webhook:' || w.id as target, w.url, w.id as webhook_id, null::varchar as analysis_id
             from webhooks w
            where w.organisation_id = e.organisation_id and w.status = 'active'
              and ${onlyWebhookId ? 'w.id = ?' : `(w.events @> '["*"]'::jsonb or w.events @> jsonb_build_array(e.type))`}
           union all
           select 'callback', a.callback_url, null, a.id
             from analyses a
            where ? and a.id = e.analysis_id and a.callback_url is not null and a.callback_secret is not null
         ) t on true
        where e.id = ?`,
      [...(onlyWebhookId ? [onlyWebhookId] : []), !onlyWebhookId, eventId],
    );
    const event = targets[0];
    if (!event) throw new Error(`event ${eventId} not found`);
    const rows = targets.filter((t) => t.target !== null);
    if (rows.length > 0)
      await sql(
        this.em,
        `insert into deliveries (id, organisation_id, event_id, event_type, webhook_id, analysis_id, target, url, status, attempt_count, created_at, updated_at)
         values ${rows.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, now(), now())").join(', ')}
         on conflict (event_id, target) do nothing`,
        rows.flatMap((t) => [
          newId('delivery'),
          event.organisation_id,
          eventId,
          event.type,
          t.webhook_id,
          t.analysis_id,
          t.target,
          t.url,
        ]),
      );
    const found = await sql<{ id: string; organisation_id: string; webhook_id: string | null; event_type: string }>(
      this.em,
      `select id, organisation_id, webhook_id, event_type from deliveries where event_id = ? ${onlyWebhookId ? 'and webhook_id = ?' : ''} order by id`,
      onlyWebhookId ? [eventId, onlyWebhookId] : [eventId],
    );
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
    metrics.webhookAttempts.inc({ outcome: outcome.outcome, status_class: statusClass(outcome.status) });
    return outcome;
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
  ): Promise<AttemptOutcome | typeof ALREADY_FINISHED> {
    const em = this.em;
    // One statement claims the attempt number and reads all the attempt needs (event, endpoint,
    // secrets): it was four round trips before the POST, on the path every webhook waits on. Only
    // a pending delivery is claimed. A finished one means this is a retry of an attempt that
    // recorded its outcome but could not report it (the Temporal server restarted, or the worker
    // died, just after): POSTing again would repeat a delivery already acknowledged.
    const [claim] = await sql<Claim>(
      em,
      `with claimed as (
         update deliveries set attempt_count = attempt_count + 1, updated_at = now()
          where id = ? and status = 'pending'
         returning attempt_count, webhook_id, analysis_id, url, event_id
       )
       select c.attempt_count, c.webhook_id, c.url,
              e.type as event_type, e.data as event_data, e.created_at as event_created_at,
              w.status as webhook_status, w.url as webhook_url,
              w.secret, w.previous_secret, w.previous_secret_expires_at, a.callback_secret
         from claimed c
         left join events e on e.id = c.event_id
         left join webhooks w on w.id = c.webhook_id
         left join analyses a on a.id = c.analysis_id and c.webhook_id is null`,
      [deliveryId],
    );
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
        await sql(
          em,
          `with attempt as (${RECORD_ATTEMPT}),
                finished as (${FINISH} returning id)
           update webhooks set failing_since = null where id = ? and failing_since is not null`,
          [...row, 'succeeded', status, deliveryId, webhookId],
        );
        return { outcome: 'succeeded', attempt, status: status! };
      }
      await sql(em, RECORD_ATTEMPT, row);
      if (status === 410) {
        await this.finish(deliveryId, 'failed', status);
        if (webhookId) await this.disable(webhookId, 'endpoint answered 410 Gone');
        return { outcome: 'gone', attempt, status };
      }
      if (webhookId) {
        const [failing] = await sql<{ failing_since: Date }>(
          em,
          `update webhooks set failing_since = coalesce(failing_since, now()) where id = ? returning failing_since`,
          [webhookId],
        );
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
      await sql(
        em,
        `update deliveries set last_status_code = ?, next_attempt_at = ?, updated_at = now() where id = ?`,
        [status, new Date(Date.now() + wait), deliveryId],
      );
      return { outcome: 'retry', attempt, status, retryAfterMs: retryAfter };
    });
  }

  private async finish(deliveryId: string, status: 'succeeded' | 'failed', code: number | null) {
    await sql(this.em, FINISH, [status, code, deliveryId]);
  }

  private async disable(webhookId: string, reason: string) {
    await this.em.transactional(async (em) => {
      const [row] = await sql<{ organisation_id: string; url: string }>(
        em,
        `update webhooks set status = 'disabled', disabled_reason = ?, updated_at = now() where id = ? and status = 'active' returning organisation_id, url`,
        [reason, webhookId],
      );
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
