import type { EntityManager } from '@mikro-orm/postgresql';
import { Event, type EventType } from './event.entity.js';
import type { EventRepository } from './event.repository.js';

export type RecordedEvent = { id: string; type: EventType; created: boolean };

export class EventService {
  /**
   * Records an event inside the caller's transaction. The same dedupe key twice (a retried
   * activity) returns the first event instead of a second one.
   */
  async record(
    em: EntityManager,
    e: {
      organisationId: string;
      type: EventType;
      dedupeKey: string;
      data: Record<string, unknown>;
      analysisId?: string | null;
    },
  ): Promise<RecordedEvent> {
    const row = await em.getRepository<Event, EventRepository>(Event).insertOnce(e);
    return { id: row.id, type: e.type, created: row.inserted };
  }

  /** The outbox mark: the event's deliveries exist and their workflows were started (the relay skips it). */
  async markDispatched(em: EntityManager, eventId: string): Promise<void> {
    await em.getRepository<Event, EventRepository>(Event).markDispatched(eventId);
  }

  /** Events committed but never dispatched before `before` (their process died in between), oldest first. */
  async undispatched(em: EntityManager, before: Date, limit: number): Promise<string[]> {
    return em.getRepository<Event, EventRepository>(Event).undispatched(before, limit);
  }

  /** How many `task.updated` events the task has had, in the caller's transaction. */
  taskUpdateCount(em: EntityManager, organisationId: string, taskId: string): Promise<number> {
    return em.getRepository<Event, EventRepository>(Event).taskUpdateCount(organisationId, taskId);
  }

  /** The ids of the analysis' events. */
  idsOfAnalysis(em: EntityManager, organisationId: string, analysisId: string): Promise<string[]> {
    return em.getRepository<Event, EventRepository>(Event).idsOfAnalysis(organisationId, analysisId);
  }

  /** The id of the event of `dedupeKey`, if recorded (none or one), in the caller's transaction. */
  idsByDedupeKey(em: EntityManager, dedupeKey: string): Promise<string[]> {
    return em.getRepository<Event, EventRepository>(Event).idsByDedupeKey(dedupeKey);
  }
}
