import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import type { EventType } from './event.entity.js';

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
    const rows = await sql<{ id: string; inserted: boolean }>(
      em,
      `insert into events (id, organisation_id, type, dedupe_key, data, analysis_id, created_at)
       values (?, ?, ?, ?, ?::jsonb, ?, now())
       on conflict (dedupe_key) do update set dedupe_key = excluded.dedupe_key
       returning id, (xmax = 0) as inserted`,
      [newId('event'), e.organisationId, e.type, e.dedupeKey, JSON.stringify(e.data), e.analysisId ?? null],
    );
    const row = rows[0]!;
    return { id: row.id, type: e.type, created: row.inserted };
  }

  /** The outbox mark: the event's deliveries exist and their workflows were started (the relay skips it). */
  async markDispatched(em: EntityManager, eventId: string): Promise<void> {
    await sql(em, `update events set dispatched_at = now() where id = ? and dispatched_at is null`, [eventId]);
  }

  /** Events committed but never dispatched before `before` (their process died in between), oldest first. */
  async undispatched(em: EntityManager, before: Date, limit: number): Promise<string[]> {
    const rows = await sql<{ id: string }>(
      em,
      `select id from events where dispatched_at is null and created_at < ? order by id limit ?`,
      [before, limit],
    );
    return rows.map((r) => r.id);
  }
}
