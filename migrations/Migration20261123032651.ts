import { Migration } from '@mikro-orm/migrations';

export class Migration20261123032651 extends Migration {
  /**
   * Idempotent answers become per API key and sealed. Stored answers from before cannot be told
   * apart by key and hold new keys and secrets in clear, so they are dropped (at most 24 hours of
   * replays; a retry after this runs as a new request).
   */
  override async up(): Promise<void> {
    this.addSql(`delete from "idempotency_keys";`);
    this.addSql(`alter table "idempotency_keys" drop constraint "idempotency_keys_pkey";`);
    this.addSql(`alter table "idempotency_keys" drop column "response_body";`);

    this.addSql(
      `alter table "idempotency_keys" add column "api_key_id" varchar(255) not null, add column "response_sealed" text null;`,
    );
    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_pkey" primary key ("organisation_id", "api_key_id", "key");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "idempotency_keys";`);
    this.addSql(`alter table "idempotency_keys" drop constraint "idempotency_keys_pkey";`);
    this.addSql(`alter table "idempotency_keys" drop column "api_key_id", drop column "response_sealed";`);

    this.addSql(`alter table "idempotency_keys" add column "response_body" jsonb null;`);
    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_pkey" primary key ("organisation_id", "key");`,
    );
  }
}
