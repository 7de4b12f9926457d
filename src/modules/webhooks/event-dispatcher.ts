import type { Client } from '@temporalio/client';
import { startOnce } from '../../temporal/start-once.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryWorkflow } from '../../temporal/contracts/delivery.js';
import { SA } from '../../temporal/contracts/search-attributes.js';
import type { TaskQueues } from '../../temporal/contracts/task-queues.js';
import type { EventService } from '../events/event.service.js';
import type { DeliveryRef, DeliveryService } from './delivery.service.js';
import { endpointKey } from './endpoint-slots.js';
import type { DispatchPriorities } from '../organisations/dispatch-priority.js';

/**
 * Turns a recorded event into deliveries and starts one delivery workflow per delivery
 * (workflow id = delivery id). Every step is idempotent, so the caller (an activity, the API, or
 * the relay) may repeat it after any crash.
 */
/** What EventDispatcher uses (src/commands.ts builds it once per process). */
export type EventDispatcherDeps = {
  em: EntityManager;
  deliveries: DeliveryService;
  events: EventService;
  /** The organisation's fairness key and weight for a start (dispatch-priority.ts). */
  priorities: DispatchPriorities;
  client: Client;
  queues: Pick<TaskQueues, 'deliveries'>;
  /** WEBHOOK_RETRY_SCHEDULE_MS: the delays between a delivery's attempts. */
  retryDelaysMs: number[];
  /** The client shares its connection with this process's workers (temporal/client.ts). */
  eagerStarts: boolean;
};

export class EventDispatcher {
  private readonly em: EntityManager;
  private readonly deliveries: DeliveryService;
  private readonly events: EventService;
  private readonly priorities: DispatchPriorities;
  private readonly client: Client;
  private readonly queues: Pick<TaskQueues, 'deliveries'>;
  private readonly retryDelaysMs: number[];
  private readonly eagerStarts: boolean;

  constructor({ em, deliveries, events, priorities, client, queues, retryDelaysMs, eagerStarts }: EventDispatcherDeps) {
    this.em = em;
    this.deliveries = deliveries;
    this.events = events;
    this.priorities = priorities;
    this.client = client;
    this.queues = queues;
    this.retryDelaysMs = retryDelaysMs;
    this.eagerStarts = eagerStarts;
  }

  async dispatch(eventId: string, onlyWebhookId?: string): Promise<DeliveryRef[]> {
    const refs = await this.deliveries.fanOut(eventId, onlyWebhookId);
    for (const ref of refs) await this.start(ref, 'REJECT_DUPLICATE');
    if (!onlyWebhookId) await this.events.markDispatched(this.em, eventId);
    return refs;
  }

  /**
   * The event's deliveries, made, and the event marked dispatched before any is attempted: the caller
   * (deliverEvents, durable in the analysis workflow) makes their first attempts and starts their
   * workflows. Marked first so the relay never starts a workflow whose first attempt would POST
   * beside one still in flight here (D273).
   */
  async fanOutOwned(eventId: string): Promise<DeliveryRef[]> {
    const refs = await this.deliveries.fanOut(eventId);
    await this.events.markDispatched(this.em, eventId);
    return refs;
  }

  /** `ALLOW_DUPLICATE` is for redelivery: a new run under the same id once the last one closed. */
  async start(
    ref: DeliveryRef,
    reuse: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE',
    made?: { attemptsMade: number; firstWaitMs: number },
  ): Promise<void> {
    // One organisation's burst of deliveries (a batch's results) queues in its own lane.
    const priority = await this.priorities.of(ref.organisationId, 'other');
    await startOnce(() =>
      this.client.workflow.start<WebhookDeliveryWorkflow>(WEBHOOK_DELIVERY_WORKFLOW, {
        workflowId: ref.id,
        priority,
        taskQueue: this.queues.deliveries,
        args: [
          {
            deliveryId: ref.id,
            retryDelaysMs: this.retryDelaysMs,
            endpoint: endpointKey(ref),
            ...(made && made.attemptsMade > 0 ? made : {}),
          },
        ],
        workflowIdReusePolicy: reuse,
        // In the worker process, the delivery's first workflow task comes back with the start.
        ...(this.eagerStarts ? { requestEagerStart: true } : {}),
        typedSearchAttributes: [
          { key: SA.organisationId, value: ref.organisationId },
          { key: SA.deliveryId, value: ref.id },
          { key: SA.eventType, value: ref.eventType },
          ...(ref.webhookId ? [{ key: SA.webhookId, value: ref.webhookId }] : []),
        ],
      }),
    );
  }

  /** The relay's share: events committed but never dispatched (the process died in between). */
  async sweep(graceMs: number, limit = 100): Promise<number> {
    const ids = await this.events.undispatched(this.em, new Date(Date.now() - graceMs), limit);
    for (const id of ids) await this.dispatch(id);
    return ids.length;
  }
}
