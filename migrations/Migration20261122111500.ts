import { Migration } from '@mikro-orm/migrations';

export class Migration20261122111500 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "tasks" ("id" varchar(255) not null, "organisation_id" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "project_id" varchar(255) null, "title" varchar(255) not null, "description" text null, "notes" text null, "status" text check ("status" in ('pending', 'in_progress', 'completed', 'cancelled')) not null default 'pending', "place_id" varchar(255) null, "assigned_to" varchar(255) null, "due_date" varchar(10) null, "expectation_ids" jsonb not null, "workflow_started_at" timestamptz null, "generation_id" varchar(255) null, "compliance_score" numeric(4,1) null, "compliance_grade" varchar(1) null, "completed_at" timestamptz null, "completed_by" varchar(255) null, constraint "tasks_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "tasks_org_id_index" on "tasks" ("organisation_id", "id");`);
    this.addSql(`create index "tasks_org_place_id_index" on "tasks" ("organisation_id", "place_id");`);
    this.addSql(`create index "tasks_org_created_at_index" on "tasks" ("organisation_id", "created_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "tasks" cascade;`);
  }
}
