import { z } from 'zod';
import { cursorParam, limitParam } from '../../lib/pagination.js';
import { singleLine } from '../../lib/validation.js';
import { DELIVERY_STATUSES, type Delivery, type DeliveryAttempt } from './delivery.entity.js';
import { WEBHOOK_STATUSES, type Webhook } from './webhook.entity.js';

export const SUBSCRIBABLE_EVENTS = [
  'analysis.completed',
  'analysis.failed',
  'task.created',
  'task.updated',
  'task.completed',
  '*',
] as const;

const url = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'https:' || u.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'Must be an absolute HTTPS URL.')
  .meta({ description: 'HTTPS URL that receives the deliveries.', example: 'https://hooks.example.com/shelf' });

const events = z
  .array(z.enum(SUBSCRIBABLE_EVENTS))
  .min(1)
  .max(SUBSCRIBABLE_EVENTS.length)
  .meta({ description: 'Event names, or `*` for all.', example: ['analysis.completed', 'analysis.failed'] });

export const createWebhookBody = z
  .strictObject({ url, events, description: singleLine(z.string().max(500)).nullable().optional() })
  .meta({ id: 'CreateWebhookRequest' });
export const updateWebhookBody = z
  .strictObject({
    url: url.optional(),
    events: events.optional(),
    description: singleLine(z.string().max(500)).nullable().optional(),
    status: z.enum(WEBHOOK_STATUSES).optional(),
  })
  .meta({ id: 'UpdateWebhookRequest' });
export type CreateWebhookInput = z.infer<typeof createWebhookBody>;
export type UpdateWebhookInput = z.infer<typeof updateWebhookBody>;

export const listWebhooksQuery = z.strictObject({ cursor: cursorParam, limit: limitParam() });
export const listDeliveriesQuery = z.strictObject({
  status: z.enum(DELIVERY_STATUSES).optional(),
  event: z.string().max(100).optional().meta({ description: 'Event name, e.g. analysis.completed.' }),
  cursor: cursorParam,
  limit: limitParam(),
});

export const webhookSchema = z
  .object({
    id: z.string().meta({ example: 'wh_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    status: z.enum(WEBHOOK_STATUSES),
    disabledReason: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Webhook' });
export const webhookWithSecretSchema = webhookSchema
  .extend({ secret: z.string().meta({ description: 'Signing secret; returned only here.' }) })
  .meta({ id: 'WebhookWithSecret' });
export const rotatedSecretSchema = z
  .object({
    id: z.string(),
    secret: z.string(),
    previousSecretExpiresAt: z.iso
      .datetime()
      .meta({ description: 'Until then deliveries carry a second v1 signature made with the previous secret.' }),
  })
  .meta({ id: 'RotatedWebhookSecret' });

export const attemptSchema = z
  .object({
    attempt: z.number().int(),
    startedAt: z.iso.datetime(),
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    responseExcerpt: z.string().nullable(),
    succeeded: z.boolean(),
  })
  .meta({ id: 'DeliveryAttempt' });
export const deliverySchema = z
  .object({
    id: z.string().meta({ example: 'dlv_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    eventId: z.string(),
    event: z.string(),
    webhookId: z.string().nullable(),
    url: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attemptCount: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    nextAttemptAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
    attempts: z.array(attemptSchema),
  })
  .meta({ id: 'Delivery' });
export const testEventSchema = z
  .object({ eventId: z.string(), deliveryId: z.string() })
  .meta({ id: 'WebhookTestResult' });

export function serializeWebhook(w: Webhook): z.infer<typeof webhookSchema> {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description ?? null,
    status: w.status,
    disabledReason: w.disabledReason ?? null,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

export function serializeDelivery(d: Delivery, attempts: DeliveryAttempt[]): z.infer<typeof deliverySchema> {
  return {
    id: d.id,
    eventId: d.eventId,
    event: d.eventType,
    webhookId: d.webhookId ?? null,
    url: d.url,
    status: d.status,
    attemptCount: d.attemptCount,
    lastStatusCode: d.lastStatusCode ?? null,
    nextAttemptAt: d.nextAttemptAt ? d.nextAttemptAt.toISOString() : null,
    createdAt: d.createdAt.toISOString(),
    completedAt: d.completedAt ? d.completedAt.toISOString() : null,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      startedAt: a.startedAt.toISOString(),
      durationMs: a.durationMs,
      statusCode: a.statusCode ?? null,
      error: a.error ?? null,
      responseExcerpt: a.responseExcerpt ?? null,
      succeeded: a.succeeded,
    })),
  };
}
