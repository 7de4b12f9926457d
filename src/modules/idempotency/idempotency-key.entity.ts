import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { IdempotencyKeyRepository } from './idempotency-key.repository.js';

const p = defineEntity.properties;

/**
 * A stored answer to a POST/PATCH sent with an Idempotency-Key, kept 24 hours. Scoped to the API
 * key that sent it: only the same key can replay it (another key's request is a new request), and
 * the answer is stored encrypted because some answers carry a new API key or signing secret.
 */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  repository: () => IdempotencyKeyRepository,
  properties: {
    organisationId: p.string().primary(),
    apiKeyId: p.string().primary(),
    key: p.string().primary(),
    /** sha256 of method, path and raw body: the same key with another request is refused. */
    fingerprint: p.string(),
    state: p.enum(['running', 'completed']),
    responseStatus: p.integer().nullable(),
    /** The answer's JSON, sealed with SECRETS_KEY (secret-box.ts). */
    responseSealed: p.text().nullable(),
    createdAt: p.datetime(),
    /** A running entry whose process died is taken over after this. */
    lockedUntil: p.datetime(),
  },
  primaryKeys: ['organisationId', 'apiKeyId', 'key'],
  indexes: [{ properties: ['createdAt'], name: 'idempotency_keys_created_at_index' }],
});
export type IdempotencyKey = InferEntity<typeof IdempotencyKey>;
