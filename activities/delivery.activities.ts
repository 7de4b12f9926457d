import type { Commands } from '../src/commands.js';
import type { Config } from '../src/config.js';
import type { Services } from '../src/services.js';
import type { DeliveryActivities } from '../src/temporal/contracts/delivery.js';
import { EndpointSlots } from '../src/modules/webhooks/endpoint-slots.js';

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
      const release = endpoint ? await slots.acquire(endpoint) : () => undefined;
      // Answered before anything is claimed or sent: the slot this activity runs in is held at most the
      // short wait in line for a quick endpoint (EndpointSlots.acquire), then free at once.
      if (!release) return { outcome: 'busy' };
      try {
        return await services.deliveries.attempt(deliveryId, nextDelayMs, deliveryOptions);
      } finally {
        release();
      }
    },

    async deliverEvents({ eventIds }) {
      return commands.events.deliverFirst(eventIds, slots, deliveryOptions);
    },

    async dispatchEvents({ eventIds }) {
      const dispatcher = commands.events;
      let deliveries = 0;
      for (const eventId of eventIds) deliveries += (await dispatcher.dispatch(eventId)).length;
      return { deliveries };
    },
  };
}
