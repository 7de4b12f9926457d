import { Migration } from '@mikro-orm/migrations';

export class Migration20261122101235 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "api_keys" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(255) null, "role" text check ("role" in ('read', 'write', 'admin')) not null, "key_hash" varchar(255) not null, "key_prefix" varchar(255) not null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, "expires_at" timestamptz null, constraint "api_keys_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);
    this.addSql(`create index "api_keys_org_id_index" on "api_keys" ("organisation_id", "id");`);

    this.addSql(
      `create table "credit_entries" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "plan_delta" int not null default 0, "payg_delta" int not null default 0, "reason" text check ("reason" in ('grant', 'plan_allocation', 'analysis', 'refund', 'adjustment')) not null, "analysis_id" varchar(255) null, "note" varchar(255) null, "created_at" timestamptz not null, constraint "credit_entries_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "credit_entries_organisation_id_index" on "credit_entries" ("organisation_id");`);
    this.addSql(
      `alter table "credit_entries" add constraint "credit_entries_analysis_reason_unique" unique ("analysis_id", "reason");`,
    );

    this.addSql(
      `create table "inventory_items" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "project_id" varchar(255) null, "sku" varchar(255) not null, "brand" varchar(255) not null, "name" varchar(255) not null, "description" text null, "category" varchar(255) null, "subcategory" varchar(255) null, "size_value" double precision null, "size_unit" varchar(255) null, "expected_price" numeric(12,2) null, "currency" varchar(3) null, "image_url" text null, "upc" varchar(255) null, constraint "inventory_items_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "inventory_items_project_id_index" on "inventory_items" ("project_id");`);
    this.addSql(`create index "inventory_items_upc_index" on "inventory_items" ("upc");`);
    this.addSql(`create index "inventory_items_org_id_index" on "inventory_items" ("organisation_id", "id");`);
    this.addSql(
      `alter table "inventory_items" add constraint "inventory_items_org_sku_unique" unique ("organisation_id", "sku");`,
    );

    this.addSql(
      `create table "organisations" ("id" varchar(255) not null, "name" varchar(255) not null, "plan" text check ("plan" in ('free', 'starter', 'growth', 'pro', 'scale', 'enterprise')) not null default 'free', "plan_credits" int not null default 0, "payg_credits" int not null default 0, "monthly_credits" int not null default 0, "period_end" timestamptz null, "custom_limits" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "organisations_pkey" primary key ("id"));`,
    );

    this.addSql(
      `create table "places" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "project_id" varchar(255) null, "title" varchar(255) not null, "address" text null, "location" jsonb null, "country_code" varchar(2) null, "state" varchar(255) null, "channel" varchar(255) null, "category_name" varchar(255) null, "street" varchar(255) null, "postal_code" varchar(255) null, "url" text null, "image_url" text null, constraint "places_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "places_project_id_index" on "places" ("project_id");`);
    this.addSql(`create index "places_org_id_index" on "places" ("organisation_id", "id");`);

    this.addSql(
      `create table "projects" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(255) not null, "description" text null, constraint "projects_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "projects_org_id_index" on "projects" ("organisation_id", "id");`);
  }
}
