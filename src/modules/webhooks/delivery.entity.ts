import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { DeliveryRepository } from './delivery.repository.js';

const p = defineEntity.properties;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event to one endpoint (a webhook, or an analysis' callback URL). Its id is the
 * X-Service-Delivery header and the id of the workflow that delivers it.
 */
export const Delivery = defineEntity({
  name: 'Delivery',
  tableName: 'deliveries',
  repository: () => DeliveryRepository,
  properties: {
    ...tenantProperties,
    eventId: p.string(),
    eventType: p.string(),
    webhookId: p.string().nullable(),
    /** Set for per-request callbacks (webhookId is then null). */
    analysisId: p.string().nullable(),
    /** `webhook:<id>` or `callback`: with eventId, makes the fan-out idempotent. */
    target: p.string(),
    url: p.text(),
    status: p.enum([...DELIVERY_STATUSES]).default('pending'),
    attemptCount: p.integer().default(0),
    nextAttemptAt: p.datetime().nullable(),
    lastStatusCode: p.integer().nullable(),
    completedAt: p.datetime().nullable(),
  },
  indexes: [
    { properties: ['organisationId', 'id'], name: 'deliveries_org_id_index' },
    { properties: ['webhookId', 'id'], name: 'deliveries_webhook_id_index' },
  ],
  uniques: [{ properties: ['eventId', 'target'], name: 'deliveries_event_target_unique' }],
});
export type Delivery = InferEntity<typeof Delivery>;

export const DeliveryAttempt = defineEntity({
  name: 'DeliveryAttempt',
  tableName: 'delivery_attempts',
  properties: {
    deliveryId: p.string().primary(),
    attempt: p.integer().primary(),
    startedAt: p.datetime(),
    durationMs: p.integer(),
    statusCode: p.integer().nullable(),
    error: p.text().nullable(),
    responseExcerpt: p.text().nullable(),
    succeeded: p.boolean(),
  },
  primaryKeys: ['deliveryId', 'attempt'],
});
export type DeliveryAttempt = InferEntity<typeof DeliveryAttempt>;
