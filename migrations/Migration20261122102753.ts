import { Migration } from '@mikro-orm/migrations';

export class Migration20261122102753 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "analyses" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "batch_id" varchar(255) null, "image_url" text not null, "place_id" varchar(255) null, "task_id" varchar(255) null, "external_id" varchar(255) null, "metadata" jsonb null, "callback_url" text null, "callback_secret" varchar(255) null, "status" text check ("status" in ('processing', 'completed', 'failed')) not null default 'processing', "total_runs" int not null, "completed_runs" int not null default 0, "failed_runs" int not null default 0, "product_count" int not null default 0, "total_units" int not null default 0, "total_value" numeric(14,2) not null, "error_code" varchar(255) null, "error_message" text null, "completed_at" timestamptz null, "workflow_started_at" timestamptz null, constraint "analyses_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "analyses_batch_id_index" on "analyses" ("batch_id");`);
    this.addSql(`create index "analyses_org_id_index" on "analyses" ("organisation_id", "id");`);
    this.addSql(`create index "analyses_org_external_id_index" on "analyses" ("organisation_id", "external_id");`);
    this.addSql(`create index "analyses_org_place_id_index" on "analyses" ("organisation_id", "place_id");`);
    this.addSql(`create index "analyses_org_status_index" on "analyses" ("organisation_id", "status");`);

    this.addSql(
      `create table "analysis_runs" ("analysis_id" varchar(255) not null, "run_index" int not null, "status" text check ("status" in ('succeeded', 'failed')) not null, "recognizer" varchar(255) not null, "products" jsonb null, "error" text null, "duration_ms" int not null, "created_at" timestamptz not null, constraint "analysis_runs_pkey" primary key ("analysis_id", "run_index"));`,
    );

    this.addSql(
      `create table "batches" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "total" int not null, "callback_url" text null, "workflow_started_at" timestamptz null, constraint "batches_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "batches_org_id_index" on "batches" ("organisation_id", "id");`);

    this.addSql(
      `create table "events" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "type" varchar(255) not null, "dedupe_key" varchar(255) not null, "data" jsonb not null, "analysis_id" varchar(255) null, "dispatched_at" timestamptz null, "created_at" timestamptz not null, constraint "events_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "events" add constraint "events_dedupe_key_unique" unique ("dedupe_key");`);
    this.addSql(`create index "events_org_id_index" on "events" ("organisation_id", "id");`);

    this.addSql(
      `create table "image_blobs" ("analysis_id" varchar(255) not null, "content_type" varchar(255) not null, "width" int not null, "height" int not null, "bytes" bytea not null, "created_at" timestamptz not null, constraint "image_blobs_pkey" primary key ("analysis_id"));`,
    );

    this.addSql(
      `create table "products" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "analysis_id" varchar(255) not null, "place_id" varchar(255) null, "position" int not null, "brand" varchar(255) null, "description" text null, "units" int not null default 1, "sku" varchar(255) null, "upc" varchar(255) null, "category" varchar(255) null, "subcategory" varchar(255) null, "price" numeric(12,2) null, "discounted_price" numeric(12,2) null, "currency" varchar(3) null, "on_sale" boolean not null default false, "confidence" text check ("confidence" in ('high', 'medium', 'low')) not null, "confidence_score" double precision not null, "shelf_position" text check ("shelf_position" in ('top', 'eye-level', 'middle', 'bottom')) null, "shelf_section" text check ("shelf_section" in ('left', 'center', 'right')) null, "fixture_type" text check ("fixture_type" in ('shelf', 'fridge', 'freezer', 'endcap', 'floor-display', 'checkout', 'other')) null, "size_value" double precision null, "size_unit" varchar(255) null, "matched_inventory_sku" varchar(255) null, "match_status" text check ("match_status" in ('matched', 'probable', 'unmatched')) not null, "created_at" timestamptz not null, constraint "products_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "products_analysis_id_index" on "products" ("analysis_id");`);
    this.addSql(`create index "products_org_id_index" on "products" ("organisation_id", "id");`);
    this.addSql(`create index "products_org_place_id_index" on "products" ("organisation_id", "place_id");`);
    this.addSql(`create index "products_org_category_index" on "products" ("organisation_id", "category");`);
    this.addSql(`create index "products_org_created_at_index" on "products" ("organisation_id", "created_at");`);
    this.addSql(
      `alter table "products" add constraint "products_analysis_position_unique" unique ("analysis_id", "position");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "analyses" cascade;`);

    this.addSql(`drop table if exists "analysis_runs" cascade;`);

    this.addSql(`drop table if exists "batches" cascade;`);

    this.addSql(`drop table if exists "events" cascade;`);

    this.addSql(`drop table if exists "image_blobs" cascade;`);

    this.addSql(`drop table if exists "products" cascade;`);
  }
}
