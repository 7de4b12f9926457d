import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { RateLimitRepository } from './rate-limit.repository.js';

const p = defineEntity.properties;

/**
 * The rolling 60-second windows when PostgreSQL keeps them: one row per bucket holding 61 one-second
 * counters (slot = second mod 61, with the second it holds). The table is UNLOGGED (created by its
 * migration): a limiter needs no durability, so taking a slot costs no WAL flush. After a database
 * crash the windows start empty, which can only admit up to one extra window of requests.
 * Read and written only by the `rate_limit_take` function (same migration).
 */
export const RateLimitWindow = defineEntity({
  name: 'RateLimitWindow',
  tableName: 'rate_limit_windows',
  repository: () => RateLimitRepository,
  properties: {
    bucket: p.string().primary().columnType('text'),
    seconds: p.string().columnType('bigint[]'),
    counts: p.string().columnType('int[]'),
    touchedAt: p.bigint('number').columnType('bigint'),
  },
});
export type RateLimitWindow = InferEntity<typeof RateLimitWindow>;
