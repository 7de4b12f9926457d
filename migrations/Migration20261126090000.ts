import { Migration } from '@mikro-orm/migrations';

/**
 * An analysis' charge records the plan period it was charged in, so that its refund gives a plan
 * credit back only while that period is current (issue 36: a refund after a renewal put an expired
 * credit into the new period's pool). Charges made before this: those of the organisation's current
 * period get it; older ones stay null, a period that has ended.
 */
export class Migration20261126090000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "credit_entries" add column "plan_period_start" timestamptz null;`);
    this.addSql(
      `update "credit_entries" c set "plan_period_start" = o."period_start"
         from "organisations" o
        where o."id" = c."organisation_id" and c."reason" = 'analysis' and c."created_at" >= o."period_start";`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "credit_entries" drop column "plan_period_start";`);
  }
}
