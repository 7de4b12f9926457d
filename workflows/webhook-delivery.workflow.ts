import { defineQuery, proxyActivities, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { DeliveryActivities } from '../activities/delivery.activities.js';
import { SA } from './shared/search-attributes.js';

export type WebhookDeliveryInput = { deliveryId: string; retryDelaysMs: number[] };
export type DeliveryProgress = { attempts: number; status: 'pending' | 'succeeded' | 'failed'; lastStatusCode: number | null; nextAttemptInMs: number | null };

export const deliveryProgressQuery = defineQuery<DeliveryProgress>('deliveryProgress');

const { attemptDelivery } = proxyActivities<DeliveryActivities>({
  // 15 s for the receiver plus our own bookkeeping.
  startToCloseTimeout: '45 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * One delivery (workflow id = delivery id): attempt, then wait on a durable timer per the retry
 * schedule (or the receiver's Retry-After, if longer), until a 2xx, a 410, a disabled endpoint or
 * the end of the schedule. A killed worker resumes the timer; nothing is lost or sent twice on purpose.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<DeliveryProgress> {
  const progress: DeliveryProgress = { attempts: 0, status: 'pending', lastStatusCode: null, nextAttemptInMs: null };
  setHandler(deliveryProgressQuery, () => progress);
  for (let i = 0; ; i++) {
    const scheduled = i < input.retryDelaysMs.length ? input.retryDelaysMs[i]! : null;
    const result = await attemptDelivery({ deliveryId: input.deliveryId, nextDelayMs: scheduled });
    progress.attempts++;
    progress.lastStatusCode = result.status;
    if (result.outcome === 'succeeded') progress.status = 'succeeded';
    else if (result.outcome !== 'retry') progress.status = 'failed';
    if (progress.status !== 'pending') break;
    const wait = Math.max(scheduled ?? 0, result.outcome === 'retry' ? (result.retryAfterMs ?? 0) : 0);
    progress.nextAttemptInMs = wait;
    await sleep(wait);
    progress.nextAttemptInMs = null;
  }
  upsertSearchAttributes([{ key: SA.status, value: progress.status }]);
  return progress;
}
