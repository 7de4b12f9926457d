import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';

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

/**
 * A rolling 60-second window shared by every API process, kept in PostgreSQL. Each bucket is
 * serialised by a transaction-scoped advisory lock, so concurrent requests on several processes
 * see exact counts; a refused request writes nothing. (rate-limiter-flexible's PostgreSQL store
 * offers fixed windows only; decisions.md asks for a rolling one.)
 */
export class RateLimiter {
  constructor(private readonly em: EntityManager) {}

  async consume(bucket: string, limit: number, weight = 1): Promise<RateLimitResult> {
    return this.em.transactional(async (em) => {
      await sql(em, `select pg_advisory_xact_lock(hashtextextended(?, 0))`, [bucket]);
      const hits = await sql<{ at: Date; weight: number }>(
        em,
        `select at, weight from rate_limit_hits where bucket = ? and at > clock_timestamp() - interval '60 seconds' order by at`,
        [bucket],
      );
      const used = hits.reduce((n, h) => n + h.weight, 0);
      const now = Date.now();
      const allowed = used + weight <= limit;
      if (allowed) await sql(em, `insert into rate_limit_hits (bucket, at, weight) values (?, clock_timestamp(), ?)`, [bucket, weight]);
      const counted = allowed ? [...hits, { at: new Date(now), weight }] : hits;
      const remaining = Math.max(0, limit - used - (allowed ? weight : 0));
      const oldest = counted[0]?.at ? new Date(counted[0].at).getTime() : now;
      const resetAt = Math.ceil((oldest + WINDOW_MS) / 1000);
      let retryAfter = 0;
      if (!allowed) {
        // Walk the log until enough weight has left the window for this request to fit.
        let freed = limit - used;
        let at = now + WINDOW_MS;
        for (const h of hits) {
          freed += h.weight;
          if (freed >= weight) {
            at = new Date(h.at).getTime() + WINDOW_MS;
            break;
          }
        }
        retryAfter = weight > limit ? 60 : Math.max(1, Math.ceil((at - now) / 1000));
      }
      return { allowed, limit, remaining, resetAt, retryAfter };
    });
  }

  /** Read-only view for the usage endpoint. */
  async peek(bucket: string, limit: number): Promise<{ limit: number; remaining: number; resetAt: number }> {
    const [row] = await sql<{ used: number; oldest: Date | null }>(
      this.em,
      `select coalesce(sum(weight), 0)::int as used, min(at) as oldest from rate_limit_hits where bucket = ? and at > clock_timestamp() - interval '60 seconds'`,
      [bucket],
    );
    const oldest = row?.oldest ? new Date(row.oldest).getTime() : Date.now();
    return { limit, remaining: Math.max(0, limit - (row?.used ?? 0)), resetAt: Math.ceil((oldest + WINDOW_MS) / 1000) };
  }

  async purgeExpired(): Promise<number> {
    const rows = await sql<{ n: number }>(this.em, `with d as (delete from rate_limit_hits where at < clock_timestamp() - interval '2 minutes' returning 1) select count(*)::int as n from d`);
    return rows[0]?.n ?? 0;
  }
}
