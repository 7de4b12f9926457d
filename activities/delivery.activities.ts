import type { Client } from '@temporalio/client';
import type { Config } from '../src/config.js';
import type { Orm } from '../src/db/orm.js';
import { createServices } from '../src/services.js';

export type DeliveryActivityDeps = { orm: Orm; config: Config; client: Client };

/** Activities of event fan-out and delivery; each forks its own entity manager. */
export function createDeliveryActivities({ orm, config, client }: DeliveryActivityDeps) {
  const services = () => createServices(orm.em.fork(), { config, temporal: client });
  return {
    async attemptDelivery({ deliveryId, nextDelayMs }: { deliveryId: string; nextDelayMs: number | null }) {
      return services().deliveries.attempt(deliveryId, nextDelayMs, {
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        allowPrivate: config.ALLOW_PRIVATE_NETWORK_FETCH,
        disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
      });
    },

    async dispatchEvents({ eventIds }: { eventIds: string[] }) {
      const dispatcher = services().eventDispatcher();
      let deliveries = 0;
      for (const eventId of eventIds) deliveries += (await dispatcher.dispatch(eventId)).length;
      return { deliveries };
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
