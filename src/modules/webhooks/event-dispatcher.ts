import type { Client } from '@temporalio/client';
import { startOnce } from '../../temporal/start-once.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryWorkflow } from '../../temporal/contracts/delivery.js';
import { SA } from '../../temporal/contracts/search-attributes.js';
import type { TaskQueues } from '../../temporal/contracts/task-queues.js';
import type { EventService } from '../events/event.service.js';
import { nextAttemptWaitMs } from '../../temporal/contracts/delivery.js';
import type { DeliveryOptions, DeliveryRef, DeliveryService } from './delivery.service.js';
import { endpointKey, type EndpointSlots } from './endpoint-slots.js';
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
   * The event's deliveries, made, and the event marked dispatched before any is attempted (deliverFirst
   * attempts them). Marked first so the relay never starts a workflow whose first attempt would POST
   * beside one still in flight here (D273).
   */
  private async fanOutOwned(eventId: string): Promise<DeliveryRef[]> {
    // The mark in the deliveries' own statement: one commit fewer before the first POST (D295).
    return this.deliveries.fanOut(eventId, undefined, { markDispatched: true });
  }

  /**
   * The analysis' own share of its events (deliverEvents, D273): the deliveries made, the events marked
   * dispatched, then every delivery's first attempt at once (one slow receiver does not hold the next
   * one's first POST), through the worker's endpoint `slots`. A delivery whose endpoint has no free slot,
   * or whose attempt did not finish it, gets its workflow, which goes on from the attempt made here after
   * the same wait it would have computed: retries stay durable workflow code.
   */
  async deliverFirst(
    eventIds: string[],
    slots: EndpointSlots,
    delivery: DeliveryOptions,
  ): Promise<{ deliveries: number; deliveredHere: number }> {
    const firstDelayMs = this.retryDelaysMs[0] ?? null;
    const refs: DeliveryRef[] = [];
    for (const eventId of eventIds) refs.push(...(await this.fanOutOwned(eventId)));
    const here = await Promise.all(
      refs.map(async (ref) => {
        const release = await slots.acquire(endpointKey(ref));
        // The endpoint's slots are taken: its workflow waits for one, as every delivery did before.
        if (!release) {
          await this.start(ref, 'REJECT_DUPLICATE');
          return false;
        }
        let result;
        try {
          result = await this.deliveries.firstAttempt(ref.id, firstDelayMs, delivery);
        } finally {
          release();
        }
        if (result.outcome !== 'retry' && result.outcome !== 'left') return true;
        const made =
          result.outcome === 'left'
            ? { attemptsMade: result.attempts, firstWaitMs: result.waitMs }
            : { attemptsMade: 1, firstWaitMs: nextAttemptWaitMs(firstDelayMs, result) };
        await this.start(ref, 'REJECT_DUPLICATE', made);
        return false;
      }),
    );
    return { deliveries: refs.length, deliveredHere: here.filter(Boolean).length };
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
