import { sql } from '../../db/sql.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import { newId } from '../../lib/ids.js';
import type { Delivery } from './delivery.entity.js';

/** An attempt's row; idempotent, so recording it again (recordPersistently) changes nothing. */
const RECORD_ATTEMPT = `insert into delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, response_excerpt, succeeded)
  values (?, ?, ?, ?, ?, ?, ?, ?)
  on conflict (delivery_id, attempt) do update set started_at = excluded.started_at, duration_ms = excluded.duration_ms,
    status_code = excluded.status_code, error = excluded.error, response_excerpt = excluded.response_excerpt,
    succeeded = excluded.succeeded`;

/** A delivery finished: its status, its last status code (kept if none), no further attempt. */
const FINISH = `update deliveries set status = ?, last_status_code = coalesce(?, last_status_code), next_attempt_at = null,
  completed_at = now(), updated_at = now() where id = ?`;

/** What an attempt's one claiming statement reads (DeliveryService.attemptOnce). */
export type Claim = {
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

/** An event's endpoints to deliver it to (one row with `target` null when it has none). */
export type FanOutTarget = {
  organisation_id: string;
  type: string;
  target: string | null;
  url: string | null;
  webhook_id: string | null;
  analysis_id: string | null;
};

/** An attempt's row in RECORD_ATTEMPT's order: delivery, attempt, started, duration, status, error, excerpt, succeeded. */
export type AttemptRow = unknown[];

/** A delivery that may be sent again, with its webhook's status (`redeliveryCandidates`). */
export type RedeliveryCandidateRow = {
  id: string;
  event_type: string;
  webhook_id: string | null;
  analysis_id: string | null;
  status: 'failed' | 'pending';
  attempt_count: number;
  last_status_code: number | null;
  completed_at: Date | null;
  webhook_status: string | null;
};

export class DeliveryRepository extends TenantRepository<Delivery> {
  /**
   * The event and each of its matching active endpoints (only `onlyWebhookId`, if given; else its
   * webhooks subscribed to its type, and its analysis' callback URL).
   */
  fanOutTargets(eventId: string, onlyWebhookId?: string): Promise<FanOutTarget[]> {
    return sql<FanOutTarget>(
      this.getEntityManager(),
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
  }

  /**
   * One pending delivery per target, in one statement; a target that has one already is skipped.
   * With `markDispatched` the same statement marks the event dispatched (one commit for both), and that
   * commit is not waited on for its flush to disk: see DeliveryService.fanOut.
   */
  async insertPending(
    event: { organisation_id: string; type: string },
    eventId: string,
    rows: FanOutTarget[],
    { markDispatched = false }: { markDispatched?: boolean } = {},
  ): Promise<void> {
    const insert = `insert into deliveries (id, organisation_id, event_id, event_type, webhook_id, analysis_id, target, url, status, attempt_count, created_at, updated_at)
         values ${rows.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, now(), now())").join(', ')}
         on conflict (event_id, target) do nothing`;
    await sql(
      this.getEntityManager(),
      markDispatched
        ? `with ${rows.length > 0 ? `made as (${insert}), ` : ''}async_commit as (select set_config('synchronous_commit', 'off', true))
           update events set dispatched_at = now() from async_commit where id = ? and dispatched_at is null`
        : insert,
      [...this.pendingValues(event, eventId, rows), ...(markDispatched ? [eventId] : [])],
    );
  }

  private pendingValues(event: { organisation_id: string; type: string }, eventId: string, rows: FanOutTarget[]) {
    return rows.flatMap((t) => [
      newId('delivery'),
      event.organisation_id,
      eventId,
      event.type,
      t.webhook_id,
      t.analysis_id,
      t.target,
      t.url,
    ]);
  }

  /** The event's deliveries (to `onlyWebhookId` only, if given), in id order. */
  ofEvent(
    eventId: string,
    onlyWebhookId?: string,
  ): Promise<{ id: string; organisation_id: string; webhook_id: string | null; event_type: string }[]> {
    return sql<{ id: string; organisation_id: string; webhook_id: string | null; event_type: string }>(
      this.getEntityManager(),
      `select id, organisation_id, webhook_id, event_type from deliveries where event_id = ? ${onlyWebhookId ? 'and webhook_id = ?' : ''} order by id`,
      onlyWebhookId ? [eventId, onlyWebhookId] : [eventId],
    );
  }

  /**
   * Claims a pending delivery's next attempt number and reads all the attempt needs (event,
   * endpoint, secrets) in one statement; nothing if the delivery is not pending.
   */
  async claimAttempt(
    deliveryId: string,
    { firstOnly = false }: { firstOnly?: boolean } = {},
  ): Promise<Claim | undefined> {
    // firstOnly: the first attempt made by the analysis that raised the event (deliverEvents), claimed
    // only while no attempt was ever made and the endpoint is not in a failing run; else its workflow makes it.
    const first = firstOnly
      ? `and d.attempt_count = 0
           and not exists (select 1 from webhooks fw where fw.id = d.webhook_id and fw.failing_since is not null)`
      : '';
    const [claim] = await sql<Claim>(
      this.getEntityManager(),
      `with claimed as (
         update deliveries d set attempt_count = d.attempt_count + 1, updated_at = now()
          where d.id = ? and d.status = 'pending' ${first}
         returning d.attempt_count, d.webhook_id, d.analysis_id, d.url, d.event_id
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
    return claim;
  }

  /**
   * A 2xx in one statement, so one commit: the attempt, the delivery finished, the endpoint's
   * failing run (if any) ended.
   */
  async recordSuccess(deliveryId: string, row: AttemptRow, status: number, webhookId: string | null): Promise<void> {
    await sql(
      this.getEntityManager(),
      `with attempt as (${RECORD_ATTEMPT}),
                finished as (${FINISH} returning id)
           update webhooks set failing_since = null where id = ? and failing_since is not null`,
      [...row, 'succeeded', status, deliveryId, webhookId],
    );
  }

  /** A delivery's status, attempts so far and next attempt's time (what a first attempt left to its workflow). */
  async state(
    deliveryId: string,
  ): Promise<{ status: string; attempt_count: number; next_attempt_at: Date | string | null } | undefined> {
    const [row] = await sql<{ status: string; attempt_count: number; next_attempt_at: Date | string | null }>(
      this.getEntityManager(),
      `select status, attempt_count, next_attempt_at from deliveries where id = ?`,
      [deliveryId],
    );
    return row;
  }

  async recordAttempt(row: AttemptRow): Promise<void> {
    await sql(this.getEntityManager(), RECORD_ATTEMPT, row);
  }

  async finish(deliveryId: string, status: 'succeeded' | 'failed', code: number | null): Promise<void> {
    await sql(this.getEntityManager(), FINISH, [status, code, deliveryId]);
  }

  /** The attempt failed and another follows at `at`. */
  async scheduleRetry(deliveryId: string, status: number | null, at: Date): Promise<void> {
    await sql(
      this.getEntityManager(),
      `update deliveries set last_status_code = ?, next_attempt_at = ?, updated_at = now() where id = ?`,
      [status, at, deliveryId],
    );
  }

  /** Back to pending for a new run, if still failed (false: someone else reopened it first). */
  async reopenFailed(organisationId: string, deliveryId: string): Promise<boolean> {
    const rows = await sql(
      this.getEntityManager(),
      `update deliveries set status = 'pending', completed_at = null, updated_at = now()
        where id = ? and organisation_id = ? and status = 'failed' returning id`,
      [deliveryId, organisationId],
    );
    return rows.length > 0;
  }

  /**
   * Whether the analysis exists in the organisation (no row: it does not), whether the delivery is
   * one of its (its callback's or one of its events'), and the delivery's webhook's status.
   */
  async ofAnalysis(
    organisationId: string,
    analysisId: string,
    deliveryId: string,
  ): Promise<{ belongs: boolean | null; webhook_status: string | null } | undefined> {
    const [row] = await sql<{ belongs: boolean | null; webhook_status: string | null }>(
      this.getEntityManager(),
      `select (d.analysis_id = a.id or e.analysis_id = a.id) as belongs, w.status as webhook_status
         from analyses a
         left join deliveries d on d.id = ? and d.organisation_id = a.organisation_id
         left join events e on e.id = d.event_id
         left join webhooks w on w.id = d.webhook_id
        where a.id = ? and a.organisation_id = ?`,
      [deliveryId, analysisId, organisationId],
    );
    return row;
  }

  /**
   * The organisation's failed deliveries that ended at or after `since`, and the pending ones not
   * waiting for a timer touched since then, oldest first, with their webhook's status.
   */
  redeliveryCandidates(organisationId: string, since: Date): Promise<RedeliveryCandidateRow[]> {
    return sql<RedeliveryCandidateRow>(
      this.getEntityManager(),
      `select d.id, d.event_type, d.webhook_id, d.analysis_id, d.status, d.attempt_count, d.last_status_code,
              d.completed_at, w.status as webhook_status
         from deliveries d left join webhooks w on w.id = d.webhook_id
        where d.organisation_id = ?
          and ((d.status = 'failed' and d.completed_at >= ?)
            or (d.status = 'pending' and d.next_attempt_at is null and d.attempt_count > 0 and d.updated_at >= ?))
        order by coalesce(d.completed_at, d.updated_at), d.id`,
      [organisationId, since, since],
    );
  }
}
