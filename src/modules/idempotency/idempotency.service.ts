import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import { AppError } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secrets/index.js';

export const IDEMPOTENCY_TTL_HOURS = 24;
const LOCK_MS = 5 * 60_000;

export type Claim = { kind: 'claimed' } | { kind: 'replay'; status: number; body: unknown };

/** Whose requests share an Idempotency-Key namespace: one API key of one organisation. */
export type IdempotencyScope = { organisationId: string; apiKeyId: string };

export function fingerprint(method: string, path: string, rawBody: string): string {
  return createHash('sha256').update(`${method}\n${path}\n${rawBody}`).digest('hex');
}

/**
 * Idempotency keys, scoped to the API key and the key string. The first request claims the key (an
 * insert that only one concurrent request can win); later ones replay, wait, or are refused.
 * Answers are stored sealed (SECRETS_KEY): a created API key or webhook secret in an answer is
 * never at rest in clear, and only the key that created it can replay it.
 */
export class IdempotencyService {
  constructor(
    private readonly em: EntityManager,
    private readonly box: () => SecretBox,
  ) {}

  async claim(scope: IdempotencyScope, key: string, print: string): Promise<Claim> {
    const where = `organisation_id = ? and api_key_id = ? and key = ?`;
    const params = [scope.organisationId, scope.apiKeyId, key];
    // An expired entry, or a running one whose process died, no longer counts.
    await sql(
      this.em,
      `delete from idempotency_keys where ${where}
         and (created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours' or (state = 'running' and locked_until < now()))`,
      params,
    );
    const inserted = await sql<{ key: string }>(
      this.em,
      `insert into idempotency_keys (organisation_id, api_key_id, key, fingerprint, state, created_at, locked_until)
       values (?, ?, ?, ?, 'running', now(), ?) on conflict do nothing returning key`,
      [...params, print, new Date(Date.now() + LOCK_MS)],
    );
    if (inserted.length === 1) return { kind: 'claimed' };
    const [existing] = await sql<{
      fingerprint: string;
      state: string;
      response_status: number | null;
      response_sealed: string | null;
    }>(
      this.em,
      `select fingerprint, state, response_status, response_sealed from idempotency_keys where ${where}`,
      params,
    );
    if (!existing) return this.claim(scope, key, print);
    if (existing.fingerprint !== print) {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        422,
        'This Idempotency-Key was used with a different request (method, path or body).',
        { idempotencyKey: key },
      );
    }
    if (existing.state === 'running') {
      throw new AppError(
        'IDEMPOTENCY_IN_PROGRESS',
        409,
        'A request with this Idempotency-Key is still being processed; retry shortly.',
        { idempotencyKey: key },
      );
    }
    const body = existing.response_sealed === null ? null : JSON.parse(this.box().open(existing.response_sealed));
    return { kind: 'replay', status: existing.response_status!, body };
  }

  async complete(scope: IdempotencyScope, key: string, status: number, body: unknown): Promise<void> {
    await sql(
      this.em,
      `update idempotency_keys set state = 'completed', response_status = ?, response_sealed = ?
        where organisation_id = ? and api_key_id = ? and key = ?`,
      [status, this.box().seal(JSON.stringify(body ?? null)), scope.organisationId, scope.apiKeyId, key],
    );
  }

  /** 5xx answers are not stored: the key is released so a retry runs again. */
  async release(scope: IdempotencyScope, key: string): Promise<void> {
    await sql(
      this.em,
      `delete from idempotency_keys where organisation_id = ? and api_key_id = ? and key = ? and state = 'running'`,
      [scope.organisationId, scope.apiKeyId, key],
    );
  }

  async purgeExpired(): Promise<number> {
    const rows = await sql<{ n: number }>(
      this.em,
      `with d as (delete from idempotency_keys where created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours' returning 1) select count(*)::int as n from d`,
    );
    return rows[0]?.n ?? 0;
  }
}
