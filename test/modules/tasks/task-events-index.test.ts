import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { initORM, type Orm } from '../../../src/db/orm.js';

describe("a task update's event count takes an indexed path", () => {
  let orm: Orm;
  before(async () => {
    orm = await initORM(process.env.DATABASE_URL!);
  });
  after(() => orm.close());

  it('the query task.service runs uses events_task_updated_index, not a scan of every tenant', async () => {
    const em = orm.em.fork();
    const plan = await em.transactional(async (tx) => {
      const conn = tx.getConnection();
      const ctx = tx.getTransactionContext();
      // The test database's events table is small; forbid the scan so the planner shows whether an index path exists.
      await conn.execute('set local enable_seqscan = off', [], 'run', ctx);
      return conn.execute<{ 'QUERY PLAN': string }[]>(
        `explain select count(*)::int as n from events where organisation_id = 'org_x' and type = 'task.updated' and data->>'taskId' = 'tsk_x'`,
        [],
        'all',
        ctx,
      );
    });
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    assert.match(text, /events_task_updated_index/, text);
  });
});
