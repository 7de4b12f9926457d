import type { EventDispatcher } from './event-dispatcher.js';
import type { WebhookService } from './webhook.service.js';

/** Webhook actions that start delivery workflows: the database through WebhookService, then the dispatcher. */
export class WebhookCommands {
  constructor(
    private readonly webhooks: WebhookService,
    private readonly dispatcher: EventDispatcher,
  ) {}

  /** A `webhook.test` event delivered to this endpoint only, through the normal delivery path. */
  async sendTest(organisationId: string, id: string): Promise<{ eventId: string; deliveryId: string }> {
    const { eventId, webhookId } = await this.webhooks.recordTest(organisationId, id);
    const [delivery] = await this.dispatcher.dispatch(eventId, webhookId);
    return { eventId, deliveryId: delivery!.id };
  }

  /** Sends a finished delivery again, same delivery id, as a new run of its workflow. */
  async redeliver(organisationId: string, webhookId: string, deliveryId: string) {
    const delivery = await this.webhooks.reopenDelivery(organisationId, webhookId, deliveryId);
    await this.dispatcher.start(
      { id: delivery.id, organisationId, webhookId, eventType: delivery.eventType },
      'ALLOW_DUPLICATE',
    );
    return delivery;
  }
}
