import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import { AppError } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secrets/index.js';

export const IDEMPOTENCY_TTL_HOURS = 24;
const LOCK_MS = 5 * 60_000;

export type Claim = { kind: 'claimed'; token: string } | { kind: 'replay'; status: number; body: unknown };

/** Whose requests share an Idempotency-Key namespace: one API key of one organisation. */
export type IdempotencyScope = { organisationId: string; apiKeyId: string };

/**
 * A claim held by one request: `token` (the claim row's creation time, to the microsecond) tells it
 * from a later claim of the same key made after this one lapsed, so a lapsed request changes nothing.
 */
export type HeldClaim = { scope: IdempotencyScope; key: string; token: string };

/**
 * A request's idempotent answer, written by the transaction that does the request's work: committed
 * together, so no crash can leave work done without its answer (whose retry would do it again).
 * `hold` locks the claim first (false: it lapsed, and another request owns the key now).
 */
export type AnswerInCommit<T> = {
  hold(em: EntityManager): Promise<boolean>;
  store(em: EntityManager, result: T): Promise<void>;
};

/** The refusal of a request whose claim lapsed while it ran: the request with the key now runs it. */
export class IdempotencyLapsedError extends AppError {
  constructor() {
    super('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  }
}

/** The claim's creation time in microseconds, as text: the same whatever the session's time zone. */
const TOKEN = `(extract(epoch from created_at) * 1000000)::bigint::text`;
const HELD = `organisation_id = ? and api_key_id = ? and key = ? and state = 'running' and ${TOKEN} = ?`;
const heldParams = (c: HeldClaim) => [c.scope.organisationId, c.scope.apiKeyId, c.key, c.token];

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
    const inserted = await sql<{ token: string }>(
      this.em,
      `insert into idempotency_keys (organisation_id, api_key_id, key, fingerprint, state, created_at, locked_until)
       values (?, ?, ?, ?, 'running', now(), ?) on conflict do nothing returning ${TOKEN} as token`,
      [...params, print, new Date(Date.now() + LOCK_MS)],
    );
    if (inserted.length === 1) return { kind: 'claimed', token: inserted[0]!.token };
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
        'This Idempotency-Key was used with a different request (method, path or body).',
        { idempotencyKey: key },
      );
    }
    if (existing.state === 'running') {
      throw new AppError(
        'IDEMPOTENCY_IN_PROGRESS',
        'A request with this Idempotency-Key is still being processed; retry shortly.',
        { idempotencyKey: key },
      );
    }
    const body = existing.response_sealed === null ? null : JSON.parse(this.box().open(existing.response_sealed));
    return { kind: 'replay', status: existing.response_status!, body };
  }

  /** Stores the answer of a claim still held (a lapsed one changes nothing). */
  async complete(claim: HeldClaim, status: number, body: unknown, em: EntityManager = this.em): Promise<void> {
    await sql(
      em,
      `update idempotency_keys set state = 'completed', response_status = ?, response_sealed = ? where ${HELD}`,
      [status, this.box().seal(JSON.stringify(body ?? null)), ...heldParams(claim)],
    );
  }

  /** Inside the work's transaction, before the work: locks the claim; false if it lapsed. */
  async hold(em: EntityManager, claim: HeldClaim): Promise<boolean> {
    return (await sql(em, `select 1 from idempotency_keys where ${HELD} for update`, heldParams(claim))).length === 1;
  }

  /** 5xx answers are not stored: the key is released so a retry runs again. */
  async release(claim: HeldClaim): Promise<void> {
    await sql(this.em, `delete from idempotency_keys where ${HELD}`, heldParams(claim));
  }

  async purgeExpired(): Promise<number> {
    const rows = await sql<{ n: number }>(
      this.em,
      `with d as (delete from idempotency_keys where created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours' returning 1) select count(*)::int as n from d`,
    );
    return rows[0]?.n ?? 0;
  }
}
