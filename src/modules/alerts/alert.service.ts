import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import type { ALERT_SEVERITIES, ALERT_SOURCE_TYPES, ALERT_TYPES } from './alert.entity.js';

export type RaiseAlert = {
  organisationId: string;
  type: (typeof ALERT_TYPES)[number];
  severity: (typeof ALERT_SEVERITIES)[number];
  title: string;
  message: string;
  sourceType: (typeof ALERT_SOURCE_TYPES)[number];
  sourceId: string;
  placeId?: string | null;
  metadata?: Record<string, unknown>;
  /** Defaults to type + source: one alert per condition per source, however often it is raised. */
  dedupeKey?: string;
};

export class AlertService {
  /** Raises an alert inside the caller's transaction; returns its id, new or existing. */
  async raise(em: EntityManager, a: RaiseAlert): Promise<{ id: string; created: boolean }> {
    const rows = await sql<{ id: string; inserted: boolean }>(
      em,
      `insert into alerts (id, organisation_id, type, severity, title, message, status, source_type, source_id, place_id, is_pinned, metadata, dedupe_key, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, 'unread', ?, ?, ?, false, ?::jsonb, ?, now(), now())
       on conflict (dedupe_key) do update set dedupe_key = excluded.dedupe_key
       returning id, (xmax = 0) as inserted`,
      [newId('alert'), a.organisationId, a.type, a.severity, a.title, a.message, a.sourceType, a.sourceId, a.placeId ?? null, JSON.stringify(a.metadata ?? {}), a.dedupeKey ?? `${a.type}:${a.sourceType}:${a.sourceId}`],
    );
    return { id: rows[0]!.id, created: rows[0]!.inserted };
  }
}
