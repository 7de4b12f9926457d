import { EntityRepository } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import type { Event, EventType } from './event.entity.js';

export class EventRepository extends EntityRepository<Event> {
  /** Inserts the event, or finds the one of the same dedupe key: its id and whether it is new. */
  async insertOnce(e: {
    organisationId: string;
    type: EventType;
    dedupeKey: string;
    data: Record<string, unknown>;
    analysisId?: string | null;
  }): Promise<{ id: string; inserted: boolean }> {
    const rows = await sql<{ id: string; inserted: boolean }>(
      this.getEntityManager(),
      `insert into events (id, organisation_id, type, dedupe_key, data, analysis_id, created_at)
       values (?, ?, ?, ?, ?::jsonb, ?, now())
       on conflict (dedupe_key) do update set dedupe_key = excluded.dedupe_key
       returning id, (xmax = 0) as inserted`,
      [newId('event'), e.organisationId, e.type, e.dedupeKey, JSON.stringify(e.data), e.analysisId ?? null],
    );
    return rows[0]!;
  }

  async markDispatched(eventId: string): Promise<void> {
    await sql(
      this.getEntityManager(),
      `update events set dispatched_at = now() where id = ? and dispatched_at is null`,
      [eventId],
    );
  }

  async undispatched(before: Date, limit: number): Promise<string[]> {
    const rows = await sql<{ id: string }>(
      this.getEntityManager(),
      `select id from events where dispatched_at is null and created_at < ? order by id limit ?`,
      [before, limit],
    );
    return rows.map((r) => r.id);
  }

  /** How many `task.updated` events the task has had. */
  async taskUpdateCount(organisationId: string, taskId: string): Promise<number> {
    const rows = await sql<{ n: number }>(
      this.getEntityManager(),
      `select count(*)::int as n from events where organisation_id = ? and type = 'task.updated' and data->>'taskId' = ?`,
      [organisationId, taskId],
    );
    return rows[0]!.n;
  }

  /** The ids of the analysis' events. */
  async idsOfAnalysis(organisationId: string, analysisId: string): Promise<string[]> {
    const events = await sql<{ id: string }>(
      this.getEntityManager(),
      `select id from events where analysis_id = ? and organisation_id = ?`,
      [analysisId, organisationId],
    );
    return events.map((e) => e.id);
  }

  /** The id of the event of `dedupeKey`, if recorded (none or one). */
  async idsByDedupeKey(dedupeKey: string): Promise<string[]> {
    const rows = await sql<{ id: string }>(this.getEntityManager(), `select id from events where dedupe_key = ?`, [
      dedupeKey,
    ]);
    return rows.map((r) => r.id);
  }
}
