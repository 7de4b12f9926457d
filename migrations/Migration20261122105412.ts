import { Migration } from '@mikro-orm/migrations';

export class Migration20261122105412 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "alerts" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "type" text check ("type" in ('out_of_stock', 'price_mismatch', 'low_compliance', 'task_overdue', 'analysis_failed', 'webhook_disabled', 'credits_low')) not null, "severity" text check ("severity" in ('critical', 'warning', 'info')) not null, "title" varchar(255) not null, "message" text not null, "status" text check ("status" in ('unread', 'read', 'acknowledged', 'dismissed', 'snoozed')) not null default 'unread', "source_type" text check ("source_type" in ('analysis', 'task', 'webhook', 'organisation')) not null, "source_id" varchar(255) not null, "place_id" varchar(255) null, "snoozed_until" timestamptz null, "actioned_by" varchar(255) null, "actioned_at" timestamptz null, "is_pinned" boolean not null default false, "metadata" jsonb null, "dedupe_key" varchar(255) not null, constraint "alerts_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "alerts" add constraint "alerts_dedupe_key_unique" unique ("dedupe_key");`);
    this.addSql(`create index "alerts_org_id_index" on "alerts" ("organisation_id", "id");`);

    this.addSql(
      `create table "deliveries" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "event_id" varchar(255) not null, "event_type" varchar(255) not null, "webhook_id" varchar(255) null, "analysis_id" varchar(255) null, "target" varchar(255) not null, "url" text not null, "status" text check ("status" in ('pending', 'succeeded', 'failed')) not null default 'pending', "attempt_count" int not null default 0, "next_attempt_at" timestamptz null, "last_status_code" int null, "completed_at" timestamptz null, constraint "deliveries_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "deliveries_org_id_index" on "deliveries" ("organisation_id", "id");`);
    this.addSql(`create index "deliveries_webhook_id_index" on "deliveries" ("webhook_id", "id");`);
    this.addSql(
      `alter table "deliveries" add constraint "deliveries_event_target_unique" unique ("event_id", "target");`,
    );

    this.addSql(
      `create table "delivery_attempts" ("delivery_id" varchar(255) not null, "attempt" int not null, "started_at" timestamptz not null, "duration_ms" int not null, "status_code" int null, "error" text null, "response_excerpt" text null, "succeeded" boolean not null, constraint "delivery_attempts_pkey" primary key ("delivery_id", "attempt"));`,
    );

    this.addSql(
      `create table "webhooks" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "url" text not null, "events" jsonb not null, "description" text null, "status" text check ("status" in ('active', 'disabled')) not null default 'active', "disabled_reason" varchar(255) null, "secret" varchar(255) not null, "previous_secret" varchar(255) null, "previous_secret_expires_at" timestamptz null, "failing_since" timestamptz null, constraint "webhooks_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhooks_org_id_index" on "webhooks" ("organisation_id", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "alerts" cascade;`);

    this.addSql(`drop table if exists "deliveries" cascade;`);

    this.addSql(`drop table if exists "delivery_attempts" cascade;`);

    this.addSql(`drop table if exists "webhooks" cascade;`);
  }
}
