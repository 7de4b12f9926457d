import {
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import {
  deliveryProgressQuery,
  nextAttemptWaitMs,
  type DeliveryActivities,
  type DeliveryProgress,
  type WebhookDeliveryInput,
  type WebhookDeliveryWorkflow,
} from '../src/temporal/contracts/delivery.js';
import { NEEDS_ATTENTION } from '../src/temporal/contracts/durable-steps.js';
import { SA } from '../src/temporal/contracts/search-attributes.js';

const { attemptDelivery } = proxyActivities<DeliveryActivities>({
  // 15 s for the receiver plus our own bookkeeping.
  startToCloseTimeout: '45 seconds',
  // Receiver failures are outcomes, not exceptions: what is retried here is our own bookkeeping,
  // with the BOOKKEEPING budget of durable-steps.ts (a database refusal is never retried).
  scheduleToCloseTimeout: '30 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * The first attempt, run in the worker that runs this workflow as a local activity: its POST leaves
 * as soon as the workflow's first task asks for it, without the activity task's trip through the
 * server (scheduled, matched, polled, started): the step between an analysis finishing and its
 * webhook arriving. One try: if it throws (our own bookkeeping), the same attempt is made again as an
 * ordinary activity with the budget above. Same guarantees: the attempt claims only a pending
 * delivery and records its answer before it returns, as the activity does.
 */
const { attemptDelivery: attemptDeliveryHere } = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '45 seconds',
  retry: { maximumAttempts: 1 },
});

/** Histories made before the local first attempt replay with the activity they recorded. */
const LOCAL_FIRST_ATTEMPT = 'local-first-attempt';

/**
 * The wait before asking again when the endpoint already had its share of deliveries in flight
 * (endpoint-slots.ts): short at first, so a delivery behind a momentary burst goes out soon, growing
 * to 10 s behind a receiver that hangs; jittered, so the waiting deliveries do not all ask at once.
 */
function busyWaitMs(busyRounds: number): number {
  return Math.round(Math.min(500 * 2 ** busyRounds, 10_000) * (0.75 + Math.random() / 2));
}

/**
 * One delivery (workflow id = delivery id): attempt, then wait on a durable timer per the retry
 * schedule (or the receiver's Retry-After, if longer), until a 2xx, a 410, a disabled endpoint or
 * the end of the schedule. A killed worker resumes the timer; nothing is lost or sent twice on purpose.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<DeliveryProgress> {
  const made = input.attemptsMade ?? 0;
  const progress: DeliveryProgress = { attempts: made, status: 'pending', lastStatusCode: null, nextAttemptInMs: null };
  setHandler(deliveryProgressQuery, () => progress);
  // Started after the analysis made the first attempt (D273): its wait, then the schedule from there.
  // Workflows started before carry neither field and begin as they always did.
  if (made > 0 && input.firstWaitMs) {
    progress.nextAttemptInMs = input.firstWaitMs;
    await sleep(input.firstWaitMs);
    progress.nextAttemptInMs = null;
  }
  for (let i = made, busyRounds = 0; ; i++) {
    const scheduled = i < input.retryDelaysMs.length ? input.retryDelaysMs[i]! : null;
    let result;
    try {
      const attempt = {
        deliveryId: input.deliveryId,
        nextDelayMs: scheduled,
        ...(input.endpoint ? { endpoint: input.endpoint } : {}),
      };
      result =
        i === 0 && patched(LOCAL_FIRST_ATTEMPT)
          ? await attemptDeliveryHere(attempt).catch((err: unknown) => {
              log.warn('local first delivery attempt failed; retrying it as an activity', { error: String(err) });
              return attemptDelivery(attempt);
            })
          : await attemptDelivery(attempt);
    } catch (err) {
      // Our side could not record the attempt: the delivery stays pending in the API, the workflow
      // ends marked for an operator (a redelivery starts it again).
      log.error('delivery attempt could not be recorded', { deliveryId: input.deliveryId, error: String(err) });
      upsertSearchAttributes([{ key: SA.status, value: NEEDS_ATTENTION }]);
      progress.status = 'failed';
      return progress;
    }
    if (result.outcome === 'busy') {
      // Nothing was sent or counted: the same attempt again after a short wait, outside any slot.
      const wait = busyWaitMs(busyRounds++);
      progress.nextAttemptInMs = wait;
      await sleep(wait);
      progress.nextAttemptInMs = null;
      i--;
      continue;
    }
    busyRounds = 0;
    progress.attempts++;
    progress.lastStatusCode = result.status;
    if (result.outcome === 'succeeded') progress.status = 'succeeded';
    else if (result.outcome !== 'retry') progress.status = 'failed';
    if (progress.status !== 'pending') break;
    const wait = nextAttemptWaitMs(scheduled, result);
    progress.nextAttemptInMs = wait;
    await sleep(wait);
    progress.nextAttemptInMs = null;
  }
  upsertSearchAttributes([{ key: SA.status, value: progress.status }]);
  return progress;
}

webhookDeliveryWorkflow satisfies WebhookDeliveryWorkflow;
