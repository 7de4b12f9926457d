import type { EntityManager } from '@mikro-orm/postgresql';
import type { RedisWindows } from './redis-windows.js';
import { RateLimitWindow } from './rate-limit.entity.js';
import type { RateLimitRepository } from './rate-limit.repository.js';

export const WINDOW_MS = 60_000;

export type RateLimitResult = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the oldest counted request leaves the window (a slot frees). */
  resetAt: number;
  /** Seconds until `weight` slots are free; 0 when allowed. */
  retryAfter: number;
};

type Row = { allowed: boolean; used: number; reset_at: string | number; retry_after: number };

function toResult(limit: number, row: Row): RateLimitResult {
  return {
    allowed: row.allowed,
    limit,
    remaining: Math.max(0, limit - row.used),
    resetAt: Number(row.reset_at),
    retryAfter: row.retry_after,
  };
}

/**
 * Rolling 60-second windows shared by every API process, as 61 one-second counters per bucket (see
 * decisions.md for the algorithm and its error bound). With REDIS_URL they live in Redis, each take
 * one Lua script; otherwise in an UNLOGGED PostgreSQL row, each take one function call. Either way a
 * request costs one round trip, no durable write, and no lock beyond that one statement; a refused
 * request consumes nothing; a batch takes all its slots or none.
 */
export class RateLimiter {
  constructor(
    private readonly em: EntityManager,
    private readonly redis?: () => RedisWindows,
  ) {}

  /** With Redis the key lookup and the take are two calls; with PostgreSQL they can be one (KeyGate). */
  get usesRedis(): boolean {
    return this.redis !== undefined;
  }

  /**
   * With Redis down (refusing, closing, never answering) the window is kept in PostgreSQL's table
   * meanwhile, so requests are served and limits hold (docs/decisions.md): a key's window starts
   * afresh on each side of the switch, so across one a key may get up to twice its limit in a minute.
   */
  private async take(bucket: string, limit: number, weight: number, take: boolean): Promise<RateLimitResult> {
    const inRedis = this.redis ? await this.redis().tryTake(bucket, limit, weight, take) : null;
    if (inRedis) return toResult(limit, inRedis);
    const row = await this.em
      .getRepository<RateLimitWindow, RateLimitRepository>(RateLimitWindow)
      .take(bucket, limit, weight, take);
    return toResult(limit, row!);
  }

  async consume(bucket: string, limit: number, weight = 1): Promise<RateLimitResult> {
    return this.take(bucket, limit, weight, true);
  }

  /** Would `weight` slots fit now? The answer a take would give, taking nothing. */
  async check(bucket: string, limit: number, weight = 1): Promise<RateLimitResult> {
    return this.take(bucket, limit, weight, false);
  }

  /** Read-only view for the usage endpoint. */
  async peek(bucket: string, limit: number): Promise<{ limit: number; remaining: number; resetAt: number }> {
    const { remaining, resetAt } = await this.check(bucket, limit);
    return { limit, remaining, resetAt };
  }

  /** Buckets idle for two windows are dropped (Redis expires its own; the table's also hold Redis's outages). */
  async purgeExpired(): Promise<number> {
    return this.em.getRepository<RateLimitWindow, RateLimitRepository>(RateLimitWindow).purgeExpired();
  }
}
