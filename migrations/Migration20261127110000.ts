import { Migration } from '@mikro-orm/migrations';

/**
 * A processing analysis' place in line (issue 40, decisions.md D211): the count of its
 * organisation's earlier processing analyses in the same lane is a range of one of these partial
 * indexes, which hold only processing rows, so it stays small however many analyses have finished.
 */
export class Migration20261127110000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "analyses_processing_single_index" on "analyses" ("organisation_id", "id") where "status" = 'processing' and "batch_id" is null;`,
    );
    this.addSql(
      `create index "analyses_processing_batch_index" on "analyses" ("organisation_id", "id") where "status" = 'processing' and "batch_id" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "analyses_processing_single_index";`);
    this.addSql(`drop index "analyses_processing_batch_index";`);
  }
}
