import { Migration } from '@mikro-orm/migrations';

export class Migration20261122122202 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "invitations" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "email" varchar(255) not null, "phone" varchar(255) null, "role" text check ("role" in ('member', 'tasker')) not null, "reports_to" varchar(255) null, "status" text check ("status" in ('pending', 'accepted', 'revoked')) not null, "user_id" varchar(255) null, constraint "invitations_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "invitations_org_email_index" on "invitations" ("organisation_id", "email");`);

    this.addSql(
      `create table "users" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(255) not null, "email" varchar(255) not null, "phone" varchar(255) null, "role" text check ("role" in ('owner', 'member', 'tasker')) not null, "reports_to" varchar(255) null, constraint "users_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "users_org_id_index" on "users" ("organisation_id", "id");`);
    this.addSql(`alter table "users" add constraint "users_org_email_unique" unique ("organisation_id", "email");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "invitations" cascade;`);

    this.addSql(`drop table if exists "users" cascade;`);
  }
}
