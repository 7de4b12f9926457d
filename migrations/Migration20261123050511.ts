import { Migration } from '@mikro-orm/migrations';

export class Migration20261123050511 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "events_task_updated_index" on "events" ("organisation_id", (data->>'taskId')) where type = 'task.updated';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "events_task_updated_index";`);
  }
}
