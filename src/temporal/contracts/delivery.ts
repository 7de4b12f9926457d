// The webhook delivery workflow's contract (see analysis.ts for how contracts are used).
import { defineQuery } from '@temporalio/workflow';

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';

export type WebhookDeliveryInput = {
  deliveryId: string;
  retryDelaysMs: number[];
  /** The endpoint whose concurrency the attempts share (endpoint-slots.ts); absent in workflows started before it. */
  endpoint?: string;
  /**
   * Attempts already made before this workflow started (the first one, by the analysis that raised
   * the event: deliverEvents, D273), and the wait before the next: absent, it attempts at once from the first.
   */
  attemptsMade?: number;
  firstWaitMs?: number;
};
export type DeliveryProgress = {
  attempts: number;
  status: 'pending' | 'succeeded' | 'failed';
  lastStatusCode: number | null;
  nextAttemptInMs: number | null;
};
export type WebhookDeliveryWorkflow = (input: WebhookDeliveryInput) => Promise<DeliveryProgress>;
export const deliveryProgressQuery = defineQuery<DeliveryProgress>('deliveryProgress');

/** One attempt's result: the workflow waits and tries again only on `retry`. */
export type AttemptOutcome =
  | { outcome: 'succeeded'; attempt: number; status: number }
  | { outcome: 'retry'; attempt: number; status: number | null; retryAfterMs: number | null }
  | { outcome: 'gone' | 'abandoned'; attempt: number; status: number | null };

/**
 * The wait before the attempt after `result`: the schedule's delay, or the receiver's Retry-After where
 * longer. One rule for the delivery workflow and for the analysis' first attempt (deliverEvents), whose
 * workflow goes on after the wait it would have computed itself.
 */
export function nextAttemptWaitMs(scheduledMs: number | null, result: AttemptOutcome): number {
  return Math.max(scheduledMs ?? 0, result.outcome === 'retry' ? (result.retryAfterMs ?? 0) : 0);
}

/** The endpoint already had its share of deliveries in flight (endpoint-slots.ts): nothing was sent or counted. */
export type EndpointBusy = { outcome: 'busy' };

export interface DeliveryActivities {
  /** One signed POST and its recorded attempt; receiver failures are outcomes, not exceptions. */
  attemptDelivery(input: {
    deliveryId: string;
    nextDelayMs: number | null;
    endpoint?: string;
  }): Promise<AttemptOutcome | EndpointBusy>;
  /** Fan-out: one delivery (and its workflow) per subscribed endpoint and the callback URL. */
  dispatchEvents(input: { eventIds: string[] }): Promise<{ deliveries: number }>;
  /**
   * Fan-out whose deliveries' first attempts are made here, each at once and in parallel: a delivery
   * workflow is started only for those not finished by it (a failed attempt's retries, a busy endpoint).
   */
  deliverEvents(input: { eventIds: string[] }): Promise<{ deliveries: number; deliveredHere: number }>;
}
