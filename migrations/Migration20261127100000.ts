import { Migration } from '@mikro-orm/migrations';

/**
 * The console's analysis page (issue 37): a preview of each analysed photo (the photo itself is not
 * kept past its analysis), where each product is on it, and an analysis' events (for its deliveries)
 * found by index.
 */
export class Migration20261127100000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "analysis_images" ("analysis_id" varchar(255) not null, "organisation_id" varchar(255) not null, "content_type" varchar(255) not null, "width" int not null, "height" int not null, "bytes" bytea not null, "created_at" timestamptz not null, constraint "analysis_images_pkey" primary key ("analysis_id"));`,
    );
    this.addSql(`create index "analysis_images_created_at_index" on "analysis_images" ("created_at");`);

    this.addSql(`create index "events_analysis_id_index" on "events" ("analysis_id");`);

    this.addSql(
      `alter table "products" add column "box_x" double precision null, add column "box_y" double precision null, add column "box_width" double precision null, add column "box_height" double precision null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "analysis_images" cascade;`);

    this.addSql(`drop index "events_analysis_id_index";`);

    this.addSql(
      `alter table "products" drop column "box_x", drop column "box_y", drop column "box_width", drop column "box_height";`,
    );
  }
}
