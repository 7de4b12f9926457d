import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/** A stored answer to a POST/PATCH sent with an Idempotency-Key, kept 24 hours. */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  properties: {
    organisationId: p.string().primary(),
    key: p.string().primary(),
    /** sha256 of method, path and raw body: the same key with another request is refused. */
    fingerprint: p.string(),
    state: p.enum(['running', 'completed']),
    responseStatus: p.integer().nullable(),
    responseBody: p.json<unknown>().nullable(),
    createdAt: p.datetime(),
    /** A running entry whose process died is taken over after this. */
    lockedUntil: p.datetime(),
  },
  primaryKeys: ['organisationId', 'key'],
  indexes: [{ properties: ['createdAt'], name: 'idempotency_keys_created_at_index' }],
});
export type IdempotencyKey = InferEntity<typeof IdempotencyKey>;
