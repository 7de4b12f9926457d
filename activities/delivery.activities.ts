import type { Commands } from '../src/commands.js';
import type { Config } from '../src/config.js';
import type { Services } from '../src/services.js';
import { nextAttemptWaitMs, type DeliveryActivities } from '../src/temporal/contracts/delivery.js';
import { EndpointSlots, endpointKey } from '../src/modules/webhooks/endpoint-slots.js';
import type { DeliveryRef } from '../src/modules/webhooks/delivery.service.js';

export type DeliveryActivityDeps = { services: Services; commands: Commands; config: Config };

/** Activities of event fan-out and delivery. */
export function createDeliveryActivities({ services, commands, config }: DeliveryActivityDeps): DeliveryActivities {
  // This worker's deliveries in flight per endpoint: one hung receiver cannot take every delivery slot.
  const slots = new EndpointSlots(config.WEBHOOK_ENDPOINT_CONCURRENCY);
  const deliveryOptions = {
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivate: config.ALLOW_PRIVATE_NETWORK_FETCH,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
  };
  return {
    async attemptDelivery({ deliveryId, nextDelayMs, endpoint }) {
      const release = endpoint ? slots.take(endpoint) : () => undefined;
      // Answered before anything is claimed or sent, so the slot this activity runs in is free at once.
      if (!release) return { outcome: 'busy' };
      try {
        return await services.deliveries.attempt(deliveryId, nextDelayMs, deliveryOptions);
      } finally {
        release();
      }
    },

    async deliverEvents({ eventIds }) {
      const dispatcher = commands.events;
      const firstDelayMs = config.WEBHOOK_RETRY_SCHEDULE_MS[0] ?? null;
      const refs: DeliveryRef[] = [];
      for (const eventId of eventIds) refs.push(...(await dispatcher.fanOutOwned(eventId)));
      // Every endpoint at once: one slow receiver does not hold the next one's first POST.
      const here = await Promise.all(
        refs.map(async (ref) => {
          const release = slots.take(endpointKey(ref));
          // The endpoint's slots are taken: its workflow waits for one, as every delivery did before.
          if (!release) {
            await dispatcher.start(ref, 'REJECT_DUPLICATE');
            return false;
          }
          let result;
          try {
            result = await services.deliveries.firstAttempt(ref.id, firstDelayMs, deliveryOptions);
          } finally {
            release();
          }
          if (result.outcome !== 'retry' && result.outcome !== 'left') return true;
          // Retries stay durable workflow code: the workflow goes on from the attempt made here,
          // after the same wait it would have computed itself.
          const made =
            result.outcome === 'left'
              ? { attemptsMade: result.attempts, firstWaitMs: result.waitMs }
              : { attemptsMade: 1, firstWaitMs: nextAttemptWaitMs(firstDelayMs, result) };
          await dispatcher.start(ref, 'REJECT_DUPLICATE', made);
          return false;
        }),
      );
      return { deliveries: refs.length, deliveredHere: here.filter(Boolean).length };
    },

    async dispatchEvents({ eventIds }) {
      const dispatcher = commands.events;
      let deliveries = 0;
      for (const eventId of eventIds) deliveries += (await dispatcher.dispatch(eventId)).length;
      return { deliveries };
    },
  };
}
