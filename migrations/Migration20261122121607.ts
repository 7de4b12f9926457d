import { Migration } from '@mikro-orm/migrations';

export class Migration20261122121607 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "accounts" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(255) not null, "type" text check ("type" in ('brand', 'supplier', 'distributor', 'manufacturer', 'retailer', 'partner')) not null, "status" text check ("status" in ('active', 'inactive', 'archived')) not null default 'active', "contact_name" varchar(255) null, "contact_email" varchar(255) null, "contact_phone" varchar(255) null, "website" text null, "notes" text null, "logo_url" text null, constraint "accounts_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "accounts_org_id_index" on "accounts" ("organisation_id", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "accounts" cascade;`);
  }
}
