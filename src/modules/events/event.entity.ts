import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { EventRepository } from './event.repository.js';

const p = defineEntity.properties;

export const EVENT_TYPES = [
  'analysis.completed',
  'analysis.failed',
  'task.created',
  'task.updated',
  'task.completed',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * One row per occurrence, written in the same transaction as the state change it reports.
 * `dedupeKey` makes a retried write a no-op.
 */
export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  repository: () => EventRepository,
  properties: {
    id: p.string().primary(),
    organisationId: p.string(),
    type: p.string(),
    dedupeKey: p.string().unique(),
    data: p.json<Record<string, unknown>>(),
    /** For analysis events: the per-request callback target, if any. */
    analysisId: p.string().nullable(),
    /** Null until deliveries have been created for it (the fan-out outbox marker). */
    dispatchedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [
    { properties: ['organisationId', 'id'], name: 'events_org_id_index' },
    // An analysis' deliveries (the console's analysis page) are found through its events.
    { properties: ['analysisId'], name: 'events_analysis_id_index' },
    // Each task update numbers its event by counting the task's earlier ones: an indexed path, per tenant.
    {
      name: 'events_task_updated_index',
      expression: `create index "events_task_updated_index" on "events" ("organisation_id", (data->>'taskId')) where type = 'task.updated'`,
    },
  ],
});
export type Event = InferEntity<typeof Event>;
