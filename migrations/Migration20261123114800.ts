import { Migration } from '@mikro-orm/migrations';

/**
 * Enterprise organisations had no monthly credits (there was no way to set them) and their plan
 * credits never expired. Plan periods are now renewed, so give each the rule new ones get: monthly
 * credits are the credits it was created with (its `initial allocation` entry); otherwise its first
 * renewal would expire its credits and grant none.
 */
export class Migration20261123114800 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `update "organisations" o set "monthly_credits" = i."plan_delta"
         from (select distinct on ("organisation_id") "organisation_id", "plan_delta" from "credit_entries"
                where "reason" = 'plan_allocation' and "note" = 'initial allocation' and "period_start" is null
                order by "organisation_id", "created_at") i
        where i."organisation_id" = o."id" and o."plan" = 'enterprise' and o."monthly_credits" = 0;`,
    );
  }

  override async down(): Promise<void> {
    // The figures set stay: they are what these organisations are renewed with.
  }
}
