import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Delivery } from './delivery.entity.js';
import type { EventDispatcher } from './event-dispatcher.js';
import type { RedeliveryCandidate, WebhookService } from './webhook.service.js';

export type RedeliveryItem = RedeliveryCandidate & {
  outcome: 'would_redeliver' | 'redelivered' | 'skipped';
  reason?: string;
};

/** Webhook actions that start delivery workflows: the database through WebhookService, then the dispatcher. */
export class WebhookCommands {
  constructor(
    private readonly webhooks: WebhookService,
    private readonly dispatcher: EventDispatcher,
    private readonly client: Client,
  ) {}

  /** A `webhook.test` event delivered to this endpoint only, through the normal delivery path. */
  async sendTest(organisationId: string, id: string): Promise<{ eventId: string; deliveryId: string }> {
    const { eventId, webhookId } = await this.webhooks.recordTest(organisationId, id);
    const [delivery] = await this.dispatcher.dispatch(eventId, webhookId);
    return { eventId, deliveryId: delivery!.id };
  }

  /** Sends a finished delivery again, same delivery id, as a new run of its workflow. */
  async redeliver(organisationId: string, webhookId: string, deliveryId: string) {
    return this.startAgain(await this.webhooks.reopenDelivery(organisationId, webhookId, deliveryId));
  }

  /** One of an analysis' deliveries sent again (its callback's too), same delivery id, as a new run. */
  async redeliverOfAnalysis(organisationId: string, analysisId: string, deliveryId: string) {
    return this.startAgain(await this.webhooks.reopenAnalysisDelivery(organisationId, analysisId, deliveryId));
  }

  private async startAgain(delivery: Delivery): Promise<Delivery> {
    const { id, organisationId, webhookId, eventType } = delivery;
    await this.dispatcher.start({ id, organisationId, webhookId: webhookId ?? null, eventType }, 'ALLOW_DUPLICATE');
    return delivery;
  }

  /**
   * The operator's bulk redelivery (CLI webhooks:redeliver-failed): every delivery of the
   * organisation that failed since `since` is sent again as a new run of its workflow, under the same
   * delivery id (X-Service-Delivery), so receivers can de-duplicate. Pending deliveries whose
   * workflow is no longer running (a redelivery that died before its start, a workflow that ended
   * for an operator) are started again too, which makes re-running the command after a crash finish
   * the job. Deliveries to a deleted or disabled webhook are skipped. A dry run changes nothing.
   */
  async redeliverFailed(organisationId: string, since: Date, opts: { dryRun: boolean }): Promise<RedeliveryItem[]> {
    const items: RedeliveryItem[] = [];
    for (const c of await this.webhooks.redeliveryCandidates(organisationId, since)) {
      if (c.status === 'pending' && (await this.running(c.deliveryId))) continue;
      if (c.skipReason) {
        items.push({ ...c, outcome: 'skipped', reason: c.skipReason });
        continue;
      }
      if (opts.dryRun) {
        items.push({ ...c, outcome: 'would_redeliver' });
        continue;
      }
      if (c.status === 'failed' && !(await this.webhooks.reopenFailed(organisationId, c.deliveryId))) {
        items.push({ ...c, outcome: 'skipped', reason: 'no longer failed (redelivered meanwhile)' });
        continue;
      }
      const ref = { id: c.deliveryId, organisationId, webhookId: c.webhookId, eventType: c.eventType };
      await this.dispatcher.start(ref, 'ALLOW_DUPLICATE');
      items.push({ ...c, outcome: 'redelivered' });
    }
    return items;
  }

  private async running(deliveryId: string): Promise<boolean> {
    try {
      const d = await this.client.workflow.getHandle(deliveryId).describe();
      return d.status.name === 'RUNNING';
    } catch (err) {
      // Never started: a redelivery that died between reopening it and its start call.
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }
}
