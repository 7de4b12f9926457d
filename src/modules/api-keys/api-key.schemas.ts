import { z } from 'zod';
import { cursorParam, limitParam } from '../../lib/pagination.js';
import { singleLine } from '../../lib/validation.js';
import { API_KEY_ROLES, type ApiKey } from './api-key.entity.js';

export const createApiKeyBody = z
  .strictObject({
    role: z.enum(API_KEY_ROLES),
    name: singleLine(z.string().trim().min(1).max(100)).optional().meta({ example: 'warehouse sync' }),
  })
  .meta({ id: 'CreateApiKeyRequest' });
export const listApiKeysQuery = z.strictObject({ cursor: cursorParam, limit: limitParam() });
export const rotateApiKeyBody = z
  .strictObject({
    gracePeriodSeconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .default(0)
      .meta({ description: 'How long the old key keeps working; 0 revokes it at once.' }),
  })
  .meta({ id: 'RotateApiKeyRequest' });

export const apiKeySchema = z
  .object({
    id: z.string().meta({ example: 'key_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    name: z.string().nullable(),
    role: z.enum(API_KEY_ROLES),
    prefix: z
      .string()
      .meta({ description: 'First characters of the key, to tell keys apart.', example: 'svc_live_a1b2c3' }),
    status: z.enum(['active', 'revoked', 'expiring']),
    lastUsedAt: z.iso.datetime().nullable(),
    expiresAt: z.iso.datetime().nullable(),
    revokedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'ApiKey' });
export const apiKeyWithSecretSchema = apiKeySchema
  .extend({ key: z.string().meta({ description: 'The full key: shown only in this response.' }) })
  .meta({ id: 'ApiKeyWithSecret' });

export function serializeApiKey(k: ApiKey): z.infer<typeof apiKeySchema> {
  const status =
    k.revokedAt || (k.expiresAt && k.expiresAt <= new Date()) ? 'revoked' : k.expiresAt ? 'expiring' : 'active';
  return {
    id: k.id,
    name: k.name ?? null,
    role: k.role,
    prefix: k.keyPrefix,
    status,
    lastUsedAt: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
    expiresAt: k.expiresAt ? k.expiresAt.toISOString() : null,
    revokedAt: k.revokedAt ? k.revokedAt.toISOString() : null,
    createdAt: k.createdAt.toISOString(),
  };
}
