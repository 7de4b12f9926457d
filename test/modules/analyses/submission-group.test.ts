import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../../src/db/sql.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg } from '../../helpers/fixtures.js';
import { describeWhenStarted, waitFor } from '../../helpers/wait.js';
import { uniquePrefix } from '../../helpers/worker.js';

describe('single submissions committed in groups', () => {
  let api: TestApi;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('submission-group') });
  });
  after(async () => {
    await api.close();
  });

  it('60 at once against 45 credits: exactly 45 accepted, each charged once, each workflow started and marked in the outbox', async () => {
    const org = await createTestOrg(api.runtime, { credits: 45 });
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        api.request('POST', '/analyses', {
          key: org.keys.write,
          body: { imageUrl: 'https://images.example.com/shelf.jpg', externalId: `g-${i}` },
        }),
      ),
    );
    const accepted = results.filter((r) => r.status === 202);
    const refused = results.filter((r) => r.status === 402);
    assert.equal(accepted.length, 45);
    assert.equal(refused.length, 15);
    for (const r of refused) assert.equal(r.body.error.code, 'INSUFFICIENT_CREDITS');
    assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, 0);

    const em = api.runtime.orm.em.fork();
    const [counts] = await sql<{ analyses: number; charges: number; distinct_charged: number }>(
      em,
      `select (select count(*)::int from analyses where organisation_id = ?) as analyses,
              (select count(*)::int from credit_entries where organisation_id = ? and reason = 'analysis') as charges,
              (select count(distinct analysis_id)::int from credit_entries where organisation_id = ? and reason = 'analysis') as distinct_charged`,
      [org.id, org.id, org.id],
    );
    assert.deepEqual(counts, { analyses: 45, charges: 45, distinct_charged: 45 });

    // Every accepted analysis has its workflow, and the outbox knows it (the relay will not start it again).
    const ids = accepted.map((r) => r.body.data.id as string);
    for (const id of ids.slice(0, 5))
      assert.equal((await describeWhenStarted(api.runtime.temporal.client, id)).workflowId, id);
    await waitFor(
      'every outbox mark',
      async () => {
        const [row] = await sql<{ n: number }>(
          api.runtime.orm.em.fork(),
          `select count(*)::int as n from analyses where organisation_id = ? and workflow_started_at is not null`,
          [org.id],
        );
        return row!.n === 45;
      },
      10_000,
    );
  });
});
