import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secrets/index.js';
import { IdempotencyKey } from './idempotency-key.entity.js';
import type { IdempotencyKeyRepository } from './idempotency-key.repository.js';

export { IDEMPOTENCY_TTL_HOURS } from './idempotency-key.repository.js';
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
    const keys = this.em.getRepository<IdempotencyKey, IdempotencyKeyRepository>(IdempotencyKey);
    // An expired entry, or a running one whose process died, no longer counts.
    await keys.deleteLapsed(scope, key);
    const token = await keys.insertClaim(scope, key, print, new Date(Date.now() + LOCK_MS));
    if (token !== undefined) return { kind: 'claimed', token };
    const existing = await keys.findEntry(scope, key);
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
    await em
      .getRepository<IdempotencyKey, IdempotencyKeyRepository>(IdempotencyKey)
      .complete(claim, status, this.box().seal(JSON.stringify(body ?? null)));
  }

  /** Inside the work's transaction, before the work: locks the claim; false if it lapsed. */
  async hold(em: EntityManager, claim: HeldClaim): Promise<boolean> {
    return em.getRepository<IdempotencyKey, IdempotencyKeyRepository>(IdempotencyKey).hold(claim);
  }

  /** 5xx answers are not stored: the key is released so a retry runs again. */
  async release(claim: HeldClaim): Promise<void> {
    await this.em.getRepository<IdempotencyKey, IdempotencyKeyRepository>(IdempotencyKey).release(claim);
  }

  async purgeExpired(): Promise<number> {
    return this.em.getRepository<IdempotencyKey, IdempotencyKeyRepository>(IdempotencyKey).purgeExpired();
  }
}
