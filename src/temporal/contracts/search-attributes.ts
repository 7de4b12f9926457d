import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes the workflows set so operators can filter in the Temporal Web UI.
 * The dev server registers them at start (scripts/temporal.ts); other servers via `npm run cli -- temporal:setup`.
 */
export const SA = {
  organisationId: defineSearchAttributeKey('OrganisationId', SearchAttributeType.KEYWORD),
  analysisId: defineSearchAttributeKey('AnalysisId', SearchAttributeType.KEYWORD),
  batchId: defineSearchAttributeKey('BatchId', SearchAttributeType.KEYWORD),
  externalId: defineSearchAttributeKey('ExternalId', SearchAttributeType.KEYWORD),
  placeId: defineSearchAttributeKey('PlaceId', SearchAttributeType.KEYWORD),
  taskId: defineSearchAttributeKey('TaskId', SearchAttributeType.KEYWORD),
  status: defineSearchAttributeKey('EntityStatus', SearchAttributeType.KEYWORD),
  webhookId: defineSearchAttributeKey('WebhookId', SearchAttributeType.KEYWORD),
  eventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
  deliveryId: defineSearchAttributeKey('DeliveryId', SearchAttributeType.KEYWORD),
} as const;

export const SEARCH_ATTRIBUTE_NAMES = Object.values(SA).map((k) => k.name);
