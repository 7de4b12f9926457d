import { Migration } from '@mikro-orm/migrations';

/**
 * Plan periods renewed by a workflow per organisation: the period's start on the organisation, the
 * relay's mark for that workflow, and the ledger's renewal entries (plan_expiry, and plan_allocation
 * with the period they open: unique per organisation, reason and period).
 */
export class Migration20261123112039 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "credit_entries" drop constraint if exists "credit_entries_reason_check";`);
    this.addSql(`alter table "credit_entries" add column "period_start" timestamptz null;`);
    this.addSql(
      `alter table "credit_entries" add constraint "credit_entries_reason_check" check("reason" in ('grant', 'plan_allocation', 'plan_expiry', 'analysis', 'refund', 'adjustment'));`,
    );
    this.addSql(
      `alter table "credit_entries" add constraint "credit_entries_period_reason_unique" unique ("organisation_id", "reason", "period_start");`,
    );

    // Every organisation so far is in its first period (nothing ever renewed one): it started at its
    // creation. plan_workflow_ensured_at stays null, so the worker's relay starts each one's workflow,
    // which renews at once the periods already past.
    this.addSql(
      `alter table "organisations" add column "period_start" timestamptz null, add column "plan_workflow_ensured_at" timestamptz null;`,
    );
    this.addSql(
      `update "organisations" set "period_start" = "created_at", "period_end" = coalesce("period_end", "created_at" + interval '1 month');`,
    );
    this.addSql(`alter table "organisations" alter column "period_start" set not null;`);
    this.addSql(`alter table "organisations" alter column "period_end" set not null;`);
    // The relay's sweeps: organisations whose workflow has not been started yet, or is overdue.
    this.addSql(`create index "organisations_period_end_index" on "organisations" ("period_end");`);
    this.addSql(
      `create index "organisations_plan_workflow_pending_index" on "organisations" ("created_at") where "plan_workflow_ensured_at" is null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "organisations_plan_workflow_pending_index";`);
    this.addSql(`drop index "organisations_period_end_index";`);
    this.addSql(`alter table "organisations" drop column "period_start", drop column "plan_workflow_ensured_at";`);
    this.addSql(`alter table "organisations" alter column "period_end" drop not null;`);
    this.addSql(`alter table "credit_entries" drop constraint "credit_entries_period_reason_unique";`);
    this.addSql(`alter table "credit_entries" drop column "period_start";`);
    this.addSql(`alter table "credit_entries" drop constraint if exists "credit_entries_reason_check";`);
    this.addSql(`delete from "credit_entries" where "reason" = 'plan_expiry';`);
    this.addSql(
      `alter table "credit_entries" add constraint "credit_entries_reason_check" check("reason" in ('grant', 'plan_allocation', 'analysis', 'refund', 'adjustment'));`,
    );
  }
}
