import { Migration } from '@mikro-orm/migrations';

/**
 * Operator retries of failed analyses (CLI analyses:retry): each retry is numbered on the analysis,
 * and its charge and refund are ledger rows of that number, so a retry is charged at most once and
 * each charge refunded at most once.
 */
export class Migration20261123112300 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "analyses" add column "retries" int not null default 0;`);
    this.addSql(`alter table "credit_entries" add column "attempt" int not null default 0;`);
    this.addSql(`alter table "credit_entries" drop constraint "credit_entries_analysis_reason_unique";`);
    this.addSql(
      `alter table "credit_entries" add constraint "credit_entries_analysis_reason_attempt_unique" unique ("analysis_id", "reason", "attempt");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "credit_entries" drop constraint "credit_entries_analysis_reason_attempt_unique";`);
    this.addSql(`delete from "credit_entries" where "attempt" > 0;`);
    this.addSql(
      `alter table "credit_entries" add constraint "credit_entries_analysis_reason_unique" unique ("analysis_id", "reason");`,
    );
    this.addSql(`alter table "credit_entries" drop column "attempt";`);
    this.addSql(`alter table "analyses" drop column "retries";`);
  }
}
