import { sql } from '../../db/sql.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Webhook } from './webhook.entity.js';

export class WebhookRepository extends TenantRepository<Webhook> {
  /** A delivery to the endpoint failed: the start of its failing run (now, unless it had begun). */
  async markFailing(webhookId: string): Promise<{ failing_since: Date } | undefined> {
    const [failing] = await sql<{ failing_since: Date }>(
      this.getEntityManager(),
      `update webhooks set failing_since = coalesce(failing_since, now()) where id = ? returning failing_since`,
      [webhookId],
    );
    return failing;
  }

  /** Disables the endpoint if active: its organisation and URL, nothing if it was not active. */
  async disable(webhookId: string, reason: string): Promise<{ organisation_id: string; url: string } | undefined> {
    const [row] = await sql<{ organisation_id: string; url: string }>(
      this.getEntityManager(),
      `update webhooks set status = 'disabled', disabled_reason = ?, updated_at = now() where id = ? and status = 'active' returning organisation_id, url`,
      [reason, webhookId],
    );
    return row;
  }
}
