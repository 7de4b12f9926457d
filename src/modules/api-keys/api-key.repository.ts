import { TenantRepository } from '../../db/tenant-repository.js';
import { preparedSql, sql } from '../../db/sql.js';
import type { ApiKey } from './api-key.entity.js';
import type { ApiKeyRole } from './api-key.entity.js';
import type { PlanTier } from '../organisations/organisation.entity.js';

export type KeyOwner = {
  apiKeyId: string;
  organisationId: string;
  role: ApiKeyRole;
  plan: PlanTier;
  customLimits: { rateLimits?: Record<string, number>; maxBatchSize?: number } | null;
};

/**
 * A take's commit is not waited on for its flush to disk (`synchronous_commit` off for that statement's
 * transaction alone): what an operating-system crash could lose is the last fraction of a second of
 * rate-limit counts, and every request paid for a WAL flush that competed for the disk with the
 * submission's own commit and with the Temporal server's (decisions.md, "Counts and marks commit
 * without waiting for the disk"). Takes run before the route, outside any transaction.
 */
const ASYNC_COMMIT = `(select set_config('synchronous_commit', 'off', true)) async_commit`;

const TAKE_ONE = `select t.* from ${ASYNC_COMMIT} cross join lateral api_key_take(?, ?, ?, ?::jsonb, ?, ?::int) t`;
/**
 * Several takes in one statement: each call of the function sees the rows the calls before it wrote
 * (a volatile function takes a new snapshot per statement), so the counts are those of the same takes
 * made one after the other. A key not found has no row. Each call locks its bucket's row until the
 * statement ends, so the calls go in the order of `takeGroup`'s arrays, which is one order for every
 * process (below).
 */
const TAKE_MANY = `select u.n::int as n, t.*
  from ${ASYNC_COMMIT}
  cross join unnest(?::text[], ?::text[], ?::int[], ?::text[], ?::int[]) with ordinality as u(h, c, w, ab, al, n)
  cross join lateral api_key_take(u.h, u.c, u.w, ?::jsonb, u.ab, u.al) t`;

export class ApiKeyRepository extends TenantRepository<ApiKey> {
  /**
   * One indexed read per request, deliberately uncached: a revoked key must fail on the very
   * next request on every API process.
   */
  async findActiveOwner(keyHash: string): Promise<KeyOwner | null> {
    const rows = await sql<{
      api_key_id: string;
      organisation_id: string;
      role: ApiKeyRole;
      plan: PlanTier;
      custom_limits: KeyOwner['customLimits'];
    }>(
      this.getEntityManager(),
      `select k.id as api_key_id, k.organisation_id, k.role, o.plan, o.custom_limits
         from api_keys k join organisations o on o.id = k.organisation_id
        where k.key_hash = ? and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())`,
      [keyHash],
    );
    const row = rows[0];
    return row
      ? {
          apiKeyId: row.api_key_id,
          organisationId: row.organisation_id,
          role: row.role,
          plan: row.plan,
          customLimits: row.custom_limits,
        }
      : null;
  }

  /** Throttled so a busy key costs one write a minute, not one per request. */
  async touchLastUsed(apiKeyId: string): Promise<void> {
    await sql(
      this.getEntityManager(),
      `update api_keys set last_used_at = now()
          where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
      [apiKeyId],
    );
  }

  /** TAKE_ONE: one request's take (key-gate.ts), its parameters in the statement's order. */
  takeOne<T>(params: unknown[]): Promise<T[]> {
    return preparedSql<T>(this.getEntityManager(), TAKE_ONE, params);
  }

  /** TAKE_MANY: a group's takes in one statement (key-gate.ts's takeGroup), its parameters in the statement's order. */
  takeMany<T>(params: unknown[]): Promise<T[]> {
    return preparedSql<T>(this.getEntityManager(), TAKE_MANY, params);
  }

  /** Active (neither revoked nor expired) keys of the organisation. */
  async activeCount(organisationId: string): Promise<number> {
    const [row] = await sql<{ n: number }>(
      this.getEntityManager(),
      `select count(*)::int as n from api_keys where organisation_id = ? and revoked_at is null and (expires_at is null or expires_at > now())`,
      [organisationId],
    );
    return row?.n ?? 0;
  }
}
