import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/**
 * The sliding log behind the rolling 60-second windows: one row per admitted request (weight =
 * slots it took). Rows older than the window are deleted by the worker's housekeeping.
 */
export const RateLimitHit = defineEntity({
  name: 'RateLimitHit',
  tableName: 'rate_limit_hits',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    bucket: p.string(),
    at: p.datetime(),
    weight: p.integer(),
  },
  indexes: [{ properties: ['bucket', 'at'], name: 'rate_limit_hits_bucket_at_index' }],
});
export type RateLimitHit = InferEntity<typeof RateLimitHit>;
