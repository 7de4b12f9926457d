import { Migration } from '@mikro-orm/migrations';

/**
 * `webhook_disabled` alerts carried the endpoint's whole URL (message and metadata), and alerts are
 * read with the read role while an endpoint's URL is admin-only (it often holds a token in its path
 * or query). Alerts already raised are rewritten the way new ones are: the endpoint's id and host.
 */
export class Migration20261126010000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `update "alerts" a set
         "message" = 'Deliveries to webhook ' || a."source_id" || ' (' || h.host || ') stopped: '
                     || coalesce(a."metadata"->>'reason', 'disabled') || '. Fix the endpoint and set its status back to active.',
         "metadata" = jsonb_build_object('webhookId', a."source_id", 'host', h.host, 'reason', a."metadata"->>'reason')
        from (select "id", coalesce(substring("metadata"->>'url' from '^[A-Za-z]+://(?:[^/?#@]*@)?([^/?#]+)'), 'unknown host') as host
                from "alerts" where "type" = 'webhook_disabled' and "metadata"->>'url' is not null) h
       where h."id" = a."id";`,
    );
  }

  override async down(): Promise<void> {
    // The URLs are not brought back: they stay readable, by admins, on the webhook itself.
  }
}
