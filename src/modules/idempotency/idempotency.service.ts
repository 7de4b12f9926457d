import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import { AppError } from '../../lib/errors.js';

export const IDEMPOTENCY_TTL_HOURS = 24;
const LOCK_MS = 5 * 60_000;

export type Claim = { kind: 'claimed' } | { kind: 'replay'; status: number; body: unknown };

export function fingerprint(method: string, path: string, rawBody: string): string {
  return createHash('sha256').update(`${method}\n${path}\n${rawBody}`).digest('hex');
}

/**
 * Idempotency keys, scoped to the organisation and the key string. The first request claims the
 * key (an insert that only one concurrent request can win); later ones replay, wait, or are refused.
 */
export class IdempotencyService {
  constructor(private readonly em: EntityManager) {}

  async claim(organisationId: string, key: string, print: string): Promise<Claim> {
    // An expired entry, or a running one whose process died, no longer counts.
    await sql(
      this.em,
      `delete from idempotency_keys where organisation_id = ? and key = ?
         and (created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours' or (state = 'running' and locked_until < now()))`,
      [organisationId, key],
    );
    const inserted = await sql<{ key: string }>(
      this.em,
      `insert into idempotency_keys (organisation_id, key, fingerprint, state, created_at, locked_until)
       values (?, ?, ?, 'running', now(), ?) on conflict do nothing returning key`,
      [organisationId, key, print, new Date(Date.now() + LOCK_MS)],
    );
    if (inserted.length === 1) return { kind: 'claimed' };
    const [existing] = await sql<{ fingerprint: string; state: string; response_status: number | null; response_body: unknown }>(
      this.em,
      `select fingerprint, state, response_status, response_body from idempotency_keys where organisation_id = ? and key = ?`,
      [organisationId, key],
    );
    if (!existing) return this.claim(organisationId, key, print);
    if (existing.fingerprint !== print) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 422, 'This Idempotency-Key was used with a different request (method, path or body).', { idempotencyKey: key });
    }
    if (existing.state === 'running') {
      throw new AppError('IDEMPOTENCY_IN_PROGRESS', 409, 'A request with this Idempotency-Key is still being processed; retry shortly.', { idempotencyKey: key });
    }
    return { kind: 'replay', status: existing.response_status!, body: existing.response_body };
  }

  async complete(organisationId: string, key: string, status: number, body: unknown): Promise<void> {
    await sql(
      this.em,
      `update idempotency_keys set state = 'completed', response_status = ?, response_body = ?::jsonb where organisation_id = ? and key = ?`,
      [status, JSON.stringify(body ?? null), organisationId, key],
    );
  }

  /** 5xx answers are not stored: the key is released so a retry runs again. */
  async release(organisationId: string, key: string): Promise<void> {
    await sql(this.em, `delete from idempotency_keys where organisation_id = ? and key = ? and state = 'running'`, [organisationId, key]);
  }

  async purgeExpired(): Promise<number> {
    const rows = await sql<{ n: number }>(
      this.em,
      `with d as (delete from idempotency_keys where created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours' returning 1) select count(*)::int as n from d`,
    );
    return rows[0]?.n ?? 0;
  }
}
