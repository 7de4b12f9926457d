import { z } from 'zod';
import { dataEnvelope, defineRoute, deletedSchema, idParams, listEnvelope } from '../../http/route.js';
import { MAX_ANALYSIS_DELIVERIES, type WebhookService } from './webhook.service.js';
import type { WebhookCommands } from './webhook-commands.js';
import type { Delivery } from './delivery.entity.js';
import {
  createWebhookBody,
  deliverySchema,
  listDeliveriesQuery,
  listWebhooksQuery,
  rotatedSecretSchema,
  serializeDelivery,
  serializeWebhook,
  testEventSchema,
  updateWebhookBody,
  webhookSchema,
  webhookWithSecretSchema,
} from './webhook.schemas.js';

const params = idParams('wh_01jdq3x4v6m8c9a1b2c3d4e5f6');
const deliveryParams = z.object({ id: z.string().min(1).max(100), deliveryId: z.string().min(1).max(100) });
const tag = 'Webhooks';

export function webhookRoutes(webhooks: WebhookService, commands: WebhookCommands) {
  /** Sends a finished delivery again (admin): `redeliver` reopens and starts it; the answer has its attempts so far. */
  const redeliverRoute = (
    doc: { path: string; operationId: string; summary: string; description?: string },
    redeliver: (organisationId: string, id: string, deliveryId: string) => Promise<Delivery>,
  ) =>
    defineRoute({
      method: 'post',
      ...doc,
      tag,
      role: 'admin',
      params: deliveryParams,
      status: 200,
      response: dataEnvelope(deliverySchema),
      errors: ['NOT_FOUND', 'CONFLICT'],
      handler: async ({ auth, params }) => {
        const d = await redeliver(auth.organisationId, params.id, params.deliveryId);
        return { body: { data: serializeDelivery(d, await webhooks.attemptsOf(d.id)) } };
      },
    });
  return [
    defineRoute({
      method: 'post',
      path: '/webhooks',
      operationId: 'createWebhook',
      summary: 'Register a webhook endpoint',
      description:
        'The signing secret is in this response only. Deliveries are signed `X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`; the body `{ event, data, timestamp, webhookId, deliveryId }` carries the delivery id under the signature: de-duplicate on it, and refuse a delivery whose `X-Service-Delivery` header differs from it.',
      tag,
      role: 'admin',
      body: createWebhookBody,
      status: 201,
      response: dataEnvelope(webhookWithSecretSchema),
      handler: async ({ auth, body }) => {
        const w = await webhooks.create(auth.organisationId, body);
        return { status: 201, body: { data: { ...serializeWebhook(w), secret: w.secret } } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks',
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints',
      tag,
      role: 'admin',
      query: listWebhooksQuery,
      status: 200,
      response: listEnvelope(webhookSchema),
      handler: async ({ auth, query }) => {
        const page = await webhooks.list(auth.organisationId, query);
        return { body: { data: page.items.map(serializeWebhook), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/{id}',
      operationId: 'getWebhook',
      summary: 'Get a webhook endpoint',
      tag,
      role: 'admin',
      params,
      status: 200,
      response: dataEnvelope(webhookSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => ({
        body: { data: serializeWebhook(await webhooks.get(auth.organisationId, params.id)) },
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/webhooks/{id}',
      operationId: 'updateWebhook',
      summary: 'Update a webhook endpoint (url, events, description, status)',
      tag,
      role: 'admin',
      params,
      body: updateWebhookBody,
      status: 200,
      response: dataEnvelope(webhookSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params, body }) => ({
        body: { data: serializeWebhook(await webhooks.update(auth.organisationId, params.id, body)) },
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/webhooks/{id}',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint',
      tag,
      params,
      status: 200,
      response: dataEnvelope(deletedSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => {
        await webhooks.delete(auth.organisationId, params.id);
        return { body: { data: { id: params.id, deleted: true } } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/{id}/rotate-secret',
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      description: 'The previous secret keeps signing, as a second `v1=` value, for 24 hours.',
      tag,
      role: 'admin',
      params,
      status: 200,
      response: dataEnvelope(rotatedSecretSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => {
        const w = await webhooks.rotateSecret(auth.organisationId, params.id);
        return {
          body: {
            data: { id: w.id, secret: w.secret, previousSecretExpiresAt: w.previousSecretExpiresAt!.toISOString() },
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/{id}/test',
      operationId: 'sendWebhookTest',
      summary: 'Send a `webhook.test` event to this endpoint',
      description: 'A disabled endpoint is `409 CONFLICT`: enable it (`PATCH status: active`) first.',
      tag,
      role: 'admin',
      params,
      status: 200,
      response: dataEnvelope(testEventSchema),
      errors: ['NOT_FOUND', 'CONFLICT'],
      handler: async ({ auth, params }) => ({
        body: { data: await commands.sendTest(auth.organisationId, params.id) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/{id}/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'List deliveries to this endpoint, with their attempts',
      tag,
      role: 'admin',
      params,
      query: listDeliveriesQuery,
      status: 200,
      response: listEnvelope(deliverySchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params, query }) => {
        const { cursor, limit, ...filters } = query;
        const page = await webhooks.listDeliveries(auth.organisationId, params.id, filters, { cursor, limit });
        return {
          body: {
            data: page.items.map((d) =>
              serializeDelivery(
                d,
                page.attempts.filter((a) => a.deliveryId === d.id),
              ),
            ),
            pagination: page.pagination,
          },
        };
      },
    }),
    redeliverRoute(
      {
        path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
        operationId: 'redeliverWebhookDelivery',
        summary: 'Send one delivery again (same delivery id)',
      },
      (organisationId, id, deliveryId) => commands.redeliver(organisationId, id, deliveryId),
    ),
    defineRoute({
      method: 'get',
      path: '/analyses/{id}/deliveries',
      operationId: 'listAnalysisDeliveries',
      summary: "The analysis' webhook and callback deliveries, with their attempts",
      description: `Newest first, at most ${MAX_ANALYSIS_DELIVERIES}: a delivery per endpoint for each of its events (\`analysis.completed\` or \`analysis.failed\`, again for each operator retry), and its callback's (\`webhookId\` null). Admin, as webhook deliveries are (they show endpoint URLs).`,
      tag,
      role: 'admin',
      params: idParams('an_01jdq3x4v6m8c9a1b2c3d4e5f6'),
      status: 200,
      response: listEnvelope(deliverySchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => {
        const { items, attempts } = await webhooks.deliveriesOfAnalysis(auth.organisationId, params.id);
        return {
          body: {
            data: items.map((d) =>
              serializeDelivery(
                d,
                attempts.filter((a) => a.deliveryId === d.id),
              ),
            ),
            pagination: { cursor: null, hasMore: false },
          },
        };
      },
    }),
    redeliverRoute(
      {
        path: '/analyses/{id}/deliveries/{deliveryId}/redeliver',
        operationId: 'redeliverAnalysisDelivery',
        summary: "Send one of the analysis' deliveries again, its callback's too (same delivery id)",
        description:
          "Any delivery `GET /analyses/{id}/deliveries` lists: a webhook's delivery of the analysis' event, or the delivery to its `callbackUrl` (which has no webhook to redeliver it from). A new run under the same delivery id (`X-Service-Delivery`), so receivers can de-duplicate; its attempts follow the earlier ones in the log. 409 while it is still being attempted, or when its webhook was deleted or is disabled.",
      },
      (organisationId, id, deliveryId) => commands.redeliverOfAnalysis(organisationId, id, deliveryId),
    ),
  ];
}
