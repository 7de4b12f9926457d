import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { ApiKeyRepository } from './api-key.repository.js';

const p = defineEntity.properties;

export const API_KEY_ROLES = ['read', 'write', 'admin'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  repository: () => ApiKeyRepository,
  properties: {
    ...tenantProperties,
    name: p.string().nullable(),
    role: p.enum([...API_KEY_ROLES]),
    /** SHA-256 of the full key. Keys carry 256 bits of entropy, so a fast hash is enough. */
    keyHash: p.string().unique(),
    /** First characters of the key, shown in listings so people can tell keys apart. */
    keyPrefix: p.string(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    /** Set when a rotation keeps the old key alive for a grace period. */
    expiresAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['organisationId', 'id'], name: 'api_keys_org_id_index' }],
});
export type ApiKey = InferEntity<typeof ApiKey>;
