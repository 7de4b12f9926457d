import { Migration } from '@mikro-orm/migrations';

/**
 * The console's previews are stored without PostgreSQL trying to compress them, as the photos have
 * been since D246 (decisions.md D375): a preview is a JPEG (the photo itself, or made from it), which
 * pglz does not shrink, and trying cost 11 ms of PostgreSQL's CPU a 330 kB preview. Rows written
 * from now on.
 */
export class Migration20261129020000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "analysis_images" alter column "bytes" set storage external;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "analysis_images" alter column "bytes" set storage extended;`);
  }
}
