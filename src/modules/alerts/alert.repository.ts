import { sql } from '../../db/sql.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import { newId } from '../../lib/ids.js';
import type { Alert } from './alert.entity.js';
import type { RaiseAlert } from './alert.service.js';

export class AlertRepository extends TenantRepository<Alert> {
  /** Back to unread if still snoozed until `until`; whether it was. */
  async endSnooze(alertId: string, until: Date): Promise<boolean> {
    const rows = await sql<{ id: string }>(
      this.getEntityManager(),
      `update alerts set status = 'unread', snoozed_until = null, updated_at = now() where id = ? and status = 'snoozed' and snoozed_until = ? returning id`,
      [alertId, until],
    );
    return rows.length === 1;
  }

  /** Inserts the alert (its title already cut to fit), or finds the one of the same dedupe key: its id and whether it is new. */
  insertOnce(a: RaiseAlert): Promise<{ id: string; inserted: boolean }[]> {
    return sql<{ id: string; inserted: boolean }>(
      this.getEntityManager(),
      `insert into alerts (id, organisation_id, type, severity, title, message, status, source_type, source_id, place_id, is_pinned, metadata, dedupe_key, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, 'unread', ?, ?, ?, false, ?::jsonb, ?, now(), now())
       on conflict (dedupe_key) do update set dedupe_key = excluded.dedupe_key
       returning id, (xmax = 0) as inserted`,
      [
        newId('alert'),
        a.organisationId,
        a.type,
        a.severity,
        a.title,
        a.message,
        a.sourceType,
        a.sourceId,
        a.placeId ?? null,
        JSON.stringify(a.metadata ?? {}),
        a.dedupeKey ?? `${a.type}:${a.sourceType}:${a.sourceId}`,
      ],
    );
  }
}
