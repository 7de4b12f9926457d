import { EntityRepository } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import type { IdempotencyKey } from './idempotency-key.entity.js';
import type { HeldClaim, IdempotencyScope } from './idempotency.service.js';

export const IDEMPOTENCY_TTL_HOURS = 24;

/** The claim's creation time in microseconds, as text: the same whatever the session's time zone. */
const TOKEN = `(extract(epoch from created_at) * 1000000)::bigint::text`;
const HELD = `organisation_id = ? and api_key_id = ? and key = ? and state = 'running' and ${TOKEN} = ?`;
const heldParams = (c: HeldClaim) => [c.scope.organisationId, c.scope.apiKeyId, c.key, c.token];
const KEY = `organisation_id = ? and api_key_id = ? and key = ?`;
const keyParams = (scope: IdempotencyScope, key: string) => [scope.organisationId, scope.apiKeyId, key];

export class IdempotencyKeyRepository extends EntityRepository<IdempotencyKey> {
  /** Deletes the key's entry if it no longer counts: expired, or running with its process dead. */
  async deleteLapsed(scope: IdempotencyScope, key: string): Promise<void> {
    await sql(
      this.getEntityManager(),
      `delete from idempotency_keys where ${KEY}
         and (created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours' or (state = 'running' and locked_until < now()))`,
      keyParams(scope, key),
    );
  }

  /** Claims the key (running till `lockedUntil`) unless it has an entry: the claim's token, if claimed. */
  async insertClaim(
    scope: IdempotencyScope,
    key: string,
    print: string,
    lockedUntil: Date,
  ): Promise<string | undefined> {
    const inserted = await sql<{ token: string }>(
      this.getEntityManager(),
      `insert into idempotency_keys (organisation_id, api_key_id, key, fingerprint, state, created_at, locked_until)
       values (?, ?, ?, ?, 'running', now(), ?) on conflict do nothing returning ${TOKEN} as token`,
      [...keyParams(scope, key), print, lockedUntil],
    );
    return inserted.length === 1 ? inserted[0]!.token : undefined;
  }

  async findEntry(
    scope: IdempotencyScope,
    key: string,
  ): Promise<
    { fingerprint: string; state: string; response_status: number | null; response_sealed: string | null } | undefined
  > {
    const [existing] = await sql<{
      fingerprint: string;
      state: string;
      response_status: number | null;
      response_sealed: string | null;
    }>(
      this.getEntityManager(),
      `select fingerprint, state, response_status, response_sealed from idempotency_keys where ${KEY}`,
      keyParams(scope, key),
    );
    return existing;
  }

  /** Stores the (sealed) answer of a claim still held. */
  async complete(claim: HeldClaim, status: number, sealed: string): Promise<void> {
    await sql(
      this.getEntityManager(),
      `update idempotency_keys set state = 'completed', response_status = ?, response_sealed = ? where ${HELD}`,
      [status, sealed, ...heldParams(claim)],
    );
  }

  /** Locks the claim for the rest of the transaction; false if it lapsed. */
  async hold(claim: HeldClaim): Promise<boolean> {
    return (
      (await sql(this.getEntityManager(), `select 1 from idempotency_keys where ${HELD} for update`, heldParams(claim)))
        .length === 1
    );
  }

  async release(claim: HeldClaim): Promise<void> {
    await sql(this.getEntityManager(), `delete from idempotency_keys where ${HELD}`, heldParams(claim));
  }

  async purgeExpired(): Promise<number> {
    const rows = await sql<{ n: number }>(
      this.getEntityManager(),
      `with d as (delete from idempotency_keys where created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours' returning 1) select count(*)::int as n from d`,
    );
    return rows[0]?.n ?? 0;
  }
}
