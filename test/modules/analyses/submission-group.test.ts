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
    // 150 requests at once on a pool of 10 wait for connections past the API's 800 ms on a loaded CI
    // machine, which answers 503 by design (database-down.test.ts covers that): what is tested here is
    // the starts in flight, so the wait is long enough not to answer for the pool.
    api = await startTestApi({
      TASK_QUEUE_PREFIX: uniquePrefix('submission-group'),
      DATABASE_ACQUIRE_TIMEOUT_MS: 15_000,
    });
  });
  after(async () => {
    await api.close();
  });

  /** `n` submissions sent at once with one key, each its own externalId. */
  const submitAtOnce = (key: string, n: number, prefix: string) =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        api.request('POST', '/analyses', {
          key,
          body: { imageUrl: 'https://images.example.com/shelf.jpg', externalId: `${prefix}-${i}` },
        }),
      ),
    );

  it('60 at once against 45 credits: exactly 45 accepted, each charged once, each workflow started and marked in the outbox', async () => {
    const org = await createTestOrg(api.runtime, { credits: 45 });
    const results = await submitAtOnce(org.keys.write, 60, 'g');
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

  it('more at once than the API keeps starts in flight (64): every one accepted, its workflow started and marked', async () => {
    // Past the bound, held requests go on together once the starts in flight have fallen to 40
    // (BatchedSlots): none may be left waiting, and every 202 still means a started workflow.
    const org = await createTestOrg(api.runtime, { credits: 150 });
    const results = await submitAtOnce(org.keys.write, 150, 'many');
    assert.deepEqual(
      results.map((r) => r.status),
      Array(150).fill(202),
    );
    await api.runtime.commands.analyses.backgroundStartsSettled();
    const ids = results.map((r) => r.body.data.id as string);
    // Marks are written after their starts and not waited on (decisions.md, D033).
    await waitFor(
      'every outbox mark',
      async () => {
        const [left] = await sql<{ n: number }>(
          api.runtime.orm.em.fork(),
          `select count(*)::int as n from analyses where organisation_id = ? and workflow_started_at is null`,
          [org.id],
        );
        return left!.n === 0;
      },
      10_000,
    );
    for (const id of [ids[0]!, ids[75]!, ids[149]!])
      assert.equal((await describeWhenStarted(api.runtime.temporal.client, id)).workflowId, id);
  });

  it('one statement writes what the transaction writes: the same columns, the callback secret sealed, the ledger row', async () => {
    const org = await createTestOrg(api.runtime, { credits: 50 });
    const project = await api.request('POST', '/projects', { key: org.keys.write, body: { name: 'UK' } });
    const place = await api.request('POST', '/places', {
      key: org.keys.write,
      body: { title: 'Store 1', projectId: project.body.data.id },
    });
    assert.equal(place.status, 201);
    const body = {
      imageUrl: 'https://images.example.com/same.jpg',
      placeId: place.body.data.id,
      externalId: 'same-1',
      metadata: { aisle: '7' },
      callbackUrl: 'https://hooks.example.com/cb',
    };
    // No Idempotency-Key: the one-statement path. With one: the transaction that stores the answer.
    const quick = await api.request('POST', '/analyses', { key: org.keys.write, body });
    const held = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body,
      headers: { 'Idempotency-Key': `same-${org.id}` },
    });
    assert.equal(quick.status, 202);
    assert.equal(held.status, 202);
    const em = api.runtime.orm.em.fork();
    const rows = await sql<Record<string, unknown>>(
      em,
      `select a.*, c.plan_delta, c.payg_delta, c.reason, c.attempt, c.created_at = a.created_at as charged_with_it,
              c.plan_period_start = o.period_start as charged_in_its_period
         from analyses a join credit_entries c on c.analysis_id = a.id join organisations o on o.id = a.organisation_id
        where a.id in (?, ?) order by a.created_at`,
      [quick.body.data.id, held.body.data.id],
    );
    assert.equal(rows.length, 2);
    // Everything but what differs by design: ids, timestamps, the outbox mark, and the sealed secret (a secret each).
    const comparable = (r: Record<string, unknown>) => {
      assert.match(String(r.callback_secret), /^sealed1\./);
      const differ = new Set([
        'id',
        'created_at',
        'updated_at',
        'callback_secret',
        'workflow_started_at',
        'charged_with_it',
      ]);
      return Object.fromEntries(Object.entries(r).filter(([k]) => !differ.has(k)));
    };
    assert.deepEqual(comparable(rows[0]!), comparable(rows[1]!));
    // Both record the plan period they were charged in (a refund after a renewal gives no plan credit back).
    assert.deepEqual(
      rows.map((r) => r.charged_in_its_period),
      [true, true],
    );
    // The one statement stamps the analysis and its ledger row with one instant (the transaction path
    // stamps each as it is flushed, microseconds apart).
    assert.equal(rows.find((r) => r.id === quick.body.data.id)!.charged_with_it, true);
    assert.equal(new Date(String(rows[0]!.created_at)).toISOString(), quick.body.data.createdAt);
    for (const r of [quick, held]) {
      const stored = await api.runtime.orm.em.fork().findOneOrFail('Analysis', { id: r.body.data.id });
      assert.equal((stored as { callbackSecret: string }).callbackSecret, r.body.data.callbackSecret);
    }
    assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, 48);
  });

  it('a group that would cross the credits_low threshold: charged in the transaction that raises the alert, plan credits first', async () => {
    const threshold = api.runtime.config.CREDITS_LOW_THRESHOLD;
    const org = await createTestOrg(api.runtime, { credits: 2 });
    await api.runtime.services.credits.grant(org.id, threshold + 3, 'payg');
    // Balance threshold+5: the first submissions stay above the threshold, the rest cross it.
    const results = await submitAtOnce(org.keys.write, 8, 'low');
    assert.deepEqual(
      results.map((r) => r.status),
      Array(8).fill(202),
    );
    const balance = await api.runtime.services.credits.balance(org.id);
    assert.deepEqual(balance, { plan: 0, payg: threshold - 3, remaining: threshold - 3 });
    const alerts = await api.request('GET', '/alerts?type=credits_low', { key: org.keys.read });
    assert.equal(alerts.body.data.length, 1, 'credits_low raised once');
    const [ledger] = await sql<{ plan: number; payg: number }>(
      api.runtime.orm.em.fork(),
      `select count(*) filter (where plan_delta = -1)::int as plan, count(*) filter (where payg_delta = -1)::int as payg
         from credit_entries where organisation_id = ? and reason = 'analysis'`,
      [org.id],
    );
    assert.deepEqual(ledger, { plan: 2, payg: 6 });
  });
});
