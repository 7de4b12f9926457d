import { Migration } from '@mikro-orm/migrations';

export class Migration20261122110306 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "idempotency_keys" ("organisation_id" varchar(255) not null, "key" varchar(255) not null, "fingerprint" varchar(255) not null, "state" text check ("state" in ('running', 'completed')) not null, "response_status" int null, "response_body" jsonb null, "created_at" timestamptz not null, "locked_until" timestamptz not null, constraint "idempotency_keys_pkey" primary key ("organisation_id", "key"));`,
    );
    this.addSql(`create index "idempotency_keys_created_at_index" on "idempotency_keys" ("created_at");`);

    this.addSql(
      `create table "rate_limit_hits" ("id" bigserial primary key, "bucket" varchar(255) not null, "at" timestamptz not null, "weight" int not null);`,
    );
    this.addSql(`create index "rate_limit_hits_bucket_at_index" on "rate_limit_hits" ("bucket", "at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);

    this.addSql(`drop table if exists "rate_limit_hits" cascade;`);
  }
}
