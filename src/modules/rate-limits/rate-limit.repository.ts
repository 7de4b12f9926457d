import { EntityRepository } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import type { RateLimitWindow } from './rate-limit.entity.js';

export type WindowRow = { allowed: boolean; used: number; reset_at: string | number; retry_after: number };

/** The PostgreSQL windows (rate_limit_take, the database function, does the counting). */
export class RateLimitRepository extends EntityRepository<RateLimitWindow> {
  /** rate_limit_take: `weight` slots of `bucket`'s window, taken if `take` and they fit. */
  async take(bucket: string, limit: number, weight: number, take: boolean): Promise<WindowRow | undefined> {
    const [row] = await sql<WindowRow>(this.getEntityManager(), `select * from rate_limit_take(?, ?, ?, ?)`, [
      bucket,
      limit,
      weight,
      take,
    ]);
    return row;
  }

  /** Deletes the windows untouched for two minutes; how many. */
  async purgeExpired(): Promise<number> {
    const rows = await sql<{ n: number }>(
      this.getEntityManager(),
      `with d as (delete from rate_limit_windows where touched_at < extract(epoch from clock_timestamp()) - 120 returning 1) select count(*)::int as n from d`,
    );
    return rows[0]?.n ?? 0;
  }
}
