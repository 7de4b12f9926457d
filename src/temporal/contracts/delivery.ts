// The webhook delivery workflow's contract (see analysis.ts for how contracts are used).
import { defineQuery } from '@temporalio/workflow';
import type { AttemptOutcome } from '../../modules/webhooks/delivery.service.js';

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';

export type WebhookDeliveryInput = { deliveryId: string; retryDelaysMs: number[] };
export type DeliveryProgress = {
  attempts: number;
  status: 'pending' | 'succeeded' | 'failed';
  lastStatusCode: number | null;
  nextAttemptInMs: number | null;
};
export type WebhookDeliveryWorkflow = (input: WebhookDeliveryInput) => Promise<DeliveryProgress>;
export const deliveryProgressQuery = defineQuery<DeliveryProgress>('deliveryProgress');

export type { AttemptOutcome };

export interface DeliveryActivities {
  /** One signed POST and its recorded attempt; receiver failures are outcomes, not exceptions. */
  attemptDelivery(input: { deliveryId: string; nextDelayMs: number | null }): Promise<AttemptOutcome>;
  /** Fan-out: one delivery (and its workflow) per subscribed endpoint and the callback URL. */
  dispatchEvents(input: { eventIds: string[] }): Promise<{ deliveries: number }>;
}
