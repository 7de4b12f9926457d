import { Migration } from '@mikro-orm/migrations';

/**
 * A fetched photo is stored without PostgreSQL trying to compress it (issue 39, decisions.md D246):
 * JPEG and PNG bytes do not compress, and trying cost every 1–3 MB shelf photo 50–90 ms of the fetch a
 * client waits on (EXTENDED: pglz over the whole value, then stored as it was). EXTERNAL keeps the
 * out-of-line storage and skips the attempt. It applies to rows written from now on.
 */
export class Migration20261127124500 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "image_blobs" alter column "bytes" set storage external;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "image_blobs" alter column "bytes" set storage extended;`);
  }
}
