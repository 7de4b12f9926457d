import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { AlertRepository } from './alert.repository.js';

const p = defineEntity.properties;

export const ALERT_TYPES = [
  'out_of_stock',
  'price_mismatch',
  'low_compliance',
  'task_overdue',
  'analysis_failed',
  'webhook_disabled',
  'credits_low',
] as const;
export const ALERT_SEVERITIES = ['critical', 'warning', 'info'] as const;
export const ALERT_STATUSES = ['unread', 'read', 'acknowledged', 'dismissed', 'snoozed'] as const;
export const ALERT_SOURCE_TYPES = ['analysis', 'task', 'webhook', 'organisation'] as const;
/** Titles are built from names ("Out of stock: " + name): AlertService.raise fits them to this. */
export const ALERT_TITLE_MAX = 255;

/** Raised by the system only. `dedupeKey` makes the same condition on the same source one alert. */
export const Alert = defineEntity({
  name: 'Alert',
  tableName: 'alerts',
  repository: () => AlertRepository,
  properties: {
    ...tenantProperties,
    type: p.enum([...ALERT_TYPES]),
    severity: p.enum([...ALERT_SEVERITIES]),
    title: p.string().length(ALERT_TITLE_MAX),
    message: p.text(),
    status: p.enum([...ALERT_STATUSES]).default('unread'),
    sourceType: p.enum([...ALERT_SOURCE_TYPES]),
    sourceId: p.string(),
    placeId: p.string().nullable(),
    snoozedUntil: p.datetime().nullable(),
    actionedBy: p.string().nullable(),
    actionedAt: p.datetime().nullable(),
    isPinned: p.boolean().default(false),
    metadata: p.json<Record<string, unknown>>().nullable(),
    dedupeKey: p.string().unique(),
  },
  indexes: [{ properties: ['organisationId', 'id'], name: 'alerts_org_id_index' }],
});
export type Alert = InferEntity<typeof Alert>;
