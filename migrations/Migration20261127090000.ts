import { Migration } from '@mikro-orm/migrations';

/**
 * Console sign-in (issue 37): members' argon2id password hashes, server-side sessions (only the token's
 * SHA-256 kept) and one-time sign-in and invitation links (likewise). Sign-in finds a member by e-mail
 * across organisations, hence the e-mail index.
 */
export class Migration20261127090000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "member_links" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "kind" text check ("kind" in ('sign_in', 'invitation')) not null, "user_id" varchar(255) null, "invitation_id" varchar(255) null, "token_hash" varchar(255) not null, "expires_at" timestamptz not null, "used_at" timestamptz null, constraint "member_links_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "member_links" add constraint "member_links_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "member_links_user_id_index" on "member_links" ("user_id");`);
    this.addSql(`create index "member_links_invitation_id_index" on "member_links" ("invitation_id");`);

    this.addSql(
      `create table "sessions" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "user_id" varchar(255) not null, "token_hash" varchar(255) not null, "last_seen_at" timestamptz not null, "expires_at" timestamptz not null, "user_agent" varchar(255) null, "address" varchar(255) null, constraint "sessions_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "sessions" add constraint "sessions_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);
    this.addSql(`create index "sessions_expires_at_index" on "sessions" ("expires_at");`);

    this.addSql(`alter table "users" add column "password_hash" varchar(255) null;`);
    this.addSql(`create index "users_email_index" on "users" ("email");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "member_links" cascade;`);

    this.addSql(`drop table if exists "sessions" cascade;`);

    this.addSql(`drop index "users_email_index";`);
    this.addSql(`alter table "users" drop column "password_hash";`);
  }
}
