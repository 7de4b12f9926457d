import { dataEnvelope, defineRoute, idParams, listEnvelope } from '../../http/route.js';
import type { ApiKeyService } from './api-key.service.js';
import {
  apiKeySchema,
  apiKeyWithSecretSchema,
  createApiKeyBody,
  listApiKeysQuery,
  rotateApiKeyBody,
  serializeApiKey,
} from './api-key.schemas.js';

const params = idParams('key_01jdq3x4v6m8c9a1b2c3d4e5f6');
const tag = 'API keys';

export function apiKeyRoutes(keys: ApiKeyService) {
  return [
    defineRoute({
      method: 'post',
      path: '/api-keys',
      operationId: 'createApiKey',
      summary: 'Create an API key (the full key is returned once)',
      tag,
      role: 'admin',
      description: 'At most 100 working keys per organisation (409 CONFLICT past that).',
      body: createApiKeyBody,
      status: 201,
      response: dataEnvelope(apiKeyWithSecretSchema),
      errors: ['CONFLICT'],
      handler: async ({ auth, body }) => {
        const { key, secret } = await keys.create(auth.organisationId, body.role, body.name);
        return { status: 201, body: { data: { ...serializeApiKey(key), key: secret } } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api-keys',
      operationId: 'listApiKeys',
      summary: "List the organisation's API keys (never their secrets)",
      tag,
      role: 'admin',
      query: listApiKeysQuery,
      status: 200,
      response: listEnvelope(apiKeySchema),
      handler: async ({ auth, query }) => {
        const page = await keys.list(auth.organisationId, query);
        return { body: { data: page.items.map(serializeApiKey), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api-keys/{id}/rotate',
      operationId: 'rotateApiKey',
      summary: 'Replace a key: a new key now, the old one revoked at once or after a grace period',
      tag,
      role: 'admin',
      params,
      body: rotateApiKeyBody,
      status: 200,
      description:
        'A revoked or expired key cannot be rotated (409 CONFLICT); rotating again never extends a grace period.',
      response: dataEnvelope(apiKeyWithSecretSchema),
      errors: ['NOT_FOUND', 'CONFLICT'],
      handler: async ({ auth, params, body }) => {
        const { key, secret } = await keys.rotate(auth.organisationId, params.id, body.gracePeriodSeconds);
        return { body: { data: { ...serializeApiKey(key), key: secret } } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api-keys/{id}',
      operationId: 'revokeApiKey',
      summary: 'Revoke a key: refused from the very next request, on every API process',
      tag,
      params,
      status: 200,
      response: dataEnvelope(apiKeySchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => ({
        body: { data: serializeApiKey(await keys.revoke(auth.organisationId, params.id)) },
      }),
    }),
  ];
}
