import type { Commands } from '../src/commands.js';
import type { Config } from '../src/config.js';
import type { Services } from '../src/services.js';
import type { DeliveryActivities } from '../src/temporal/contracts/delivery.js';

export type DeliveryActivityDeps = { services: Services; commands: Commands; config: Config };

/** Activities of event fan-out and delivery. */
export function createDeliveryActivities({ services, commands, config }: DeliveryActivityDeps): DeliveryActivities {
  return {
    async attemptDelivery({ deliveryId, nextDelayMs }) {
      return services.deliveries.attempt(deliveryId, nextDelayMs, {
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        allowPrivate: config.ALLOW_PRIVATE_NETWORK_FETCH,
        disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
      });
    },

    async dispatchEvents({ eventIds }) {
      const dispatcher = commands.events;
      let deliveries = 0;
      for (const eventId of eventIds) deliveries += (await dispatcher.dispatch(eventId)).length;
      return { deliveries };
    },
  };
}
