import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { sql } from '../../src/db/sql.js';
import { PlanPeriodCommands } from '../../src/modules/organisations/plan-period-commands.js';
import { createServices } from '../../src/services.js';
import { PLAN_PERIOD_WORKFLOW, planPeriodWorkflowId } from '../../src/temporal/contracts/plan-period.js';
import { taskQueues } from '../../src/temporal/contracts/task-queues.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../helpers/image-host.js';
import { product, ScriptedRecognizer } from '../helpers/scripted-recognizer.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../helpers/worker.js';

/**
 * The plan-period workflow against the real dev server, with 8-second periods (PLAN_PERIOD_MS; the
 * time-skipping test server cannot be had here): renewals at each period end, exactly once each.
 */
describe('plan periods renewed by the plan-period workflow', () => {
  const PERIOD_MS = 8000;
  let api: TestApi;
  let host: ImageHost;
  let workers: Awaited<ReturnType<typeof startTestWorkers>> | undefined;
  const recognizer = new ScriptedRecognizer(() => [
    product({ brand: 'Heinz', description: 'Baked Beans 415g', units: 2, price: 0.95, currency: 'GBP' }),
  ]);

  before(async () => {
    api = await startTestApi({
      TASK_QUEUE_PREFIX: uniquePrefix('plan-period'),
      PLAN_PERIOD_MS: PERIOD_MS,
      // Every submission of these organisations leaves fewer: credits_low is raised once a period.
      CREDITS_LOW_THRESHOLD: 100,
    });
    workers = await startTestWorkers(api.runtime, recognizer);
    host = await startImageHost({ '/shelf.png': { body: await pngOfWidth(64) } });
  });
  after(async () => {
    await workers?.stop();
    await host.close();
    await api.close();
  });

  const services = () => createServices(api.runtime.orm.em.fork(), { config: api.runtime.config });
  type Entry = { reason: string; plan_delta: number; payg_delta: number; period_start: string | Date | null };
  const renewalEntries = async (orgId: string) =>
    (
      await sql<Entry>(
        api.runtime.orm.em.fork(),
        `select reason, plan_delta, payg_delta, period_start from credit_entries
          where organisation_id = ? and period_start is not null order by period_start, reason`,
        [orgId],
      )
    ).map((e) => ({ ...e, period_start: new Date(e.period_start!).toISOString() }));
  const renewedAt = async (orgId: string, periodStart: Date) =>
    (await renewalEntries(orgId)).some(
      (e) => e.reason === 'plan_allocation' && e.period_start === periodStart.toISOString(),
    );
  const usage = async (org: TestOrg) => {
    const res = await api.request('GET', '/usage', { key: org.keys.read });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data;
  };
  const submit = async (org: TestOrg) => {
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/shelf.png') },
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    return res.body.data.id as string;
  };
  /** The organisation's plan-period runs, as the visibility store lists them. */
  const planRuns = async (orgId: string) => {
    const found: WorkflowExecutionInfo[] = [];
    for await (const wf of api.runtime.temporal.client.workflow.list({
      query: `OrganisationId = "${orgId}" AND WorkflowType = "${PLAN_PERIOD_WORKFLOW}"`,
    }))
      found.push(wf);
    return found;
  };
  const creditsLowAlerts = async (org: TestOrg) =>
    (await api.request('GET', '/alerts?type=credits_low&limit=100', { key: org.keys.read })).body.data as {
      id: string;
    }[];

  it('two period ends: two renewals, one ledger entry each, balance, usage and credits_low per period; found by OrganisationId', async () => {
    const org = await createTestOrg(api.runtime, { plan: 'free', credits: 50 });
    await services().credits.grant(org.id, 7, 'payg');
    const created = (await services().organisations.get(org.id))!;
    const end = (k: number) => new Date(created.periodStart.getTime() + k * PERIOD_MS);
    assert.equal(created.periodEnd.toISOString(), end(1).toISOString());
    // What the worker's relay does for a new organisation.
    await api.runtime.commands.planPeriods.start(org.id);

    // Period 1: one submission (a plan credit), credits_low raised.
    const analyses = [await submit(org)];
    let u = await usage(org);
    assert.deepEqual(u.credits, { remaining: 56, usedThisPeriod: 1, plan: 49, payg: 7 });
    assert.equal(u.plan.periodEnd, end(1).toISOString());
    assert.equal((await creditsLowAlerts(org)).length, 1);

    // Period 2: the renewal expired 49, granted 50; two submissions; credits_low raised again, once.
    await waitFor('the first renewal', () => renewedAt(org.id, end(1)), 4 * PERIOD_MS, 100);
    analyses.push(await submit(org), await submit(org));
    u = await usage(org);
    assert.deepEqual(u.credits, { remaining: 55, usedThisPeriod: 2, plan: 48, payg: 7 });
    assert.equal(u.plan.periodEnd, end(2).toISOString());
    assert.equal(u.plan.periodStart, end(1).toISOString());
    assert.equal((await creditsLowAlerts(org)).length, 2);

    // Period 3.
    await waitFor('the second renewal', () => renewedAt(org.id, end(2)), 4 * PERIOD_MS, 100);
    for (const id of analyses)
      await waitFor(`analysis ${id} completed (no refund moves a credit)`, async () => {
        const res = await api.request('GET', `/analyses/${id}`, { key: org.keys.read });
        return res.body.data?.status === 'completed';
      });
    // The second renewal is committed before its run continues as new: stopping the workers in
    // between would leave that run running for good (seen in CI), so wait for the new run first.
    await waitFor('the second run continued as new', async () => {
      const runs = await planRuns(org.id);
      return runs.filter((wf) => wf.status.name === 'CONTINUED_AS_NEW').length >= 2;
    });
    // No worker, no further renewal: what is read below is final.
    await workers!.stop();
    workers = undefined;

    const entries = await renewalEntries(org.id);
    const renewals = entries.filter((e) => e.reason === 'plan_allocation').length;
    assert.ok(renewals >= 2, `${renewals} renewals`);
    const expected = Array.from({ length: renewals }, (_, i) => {
      const k = i + 1;
      const expired = k === 1 ? 49 : k === 2 ? 48 : 50;
      return [
        { reason: 'plan_allocation', plan_delta: 50, payg_delta: 0, period_start: end(k).toISOString() },
        { reason: 'plan_expiry', plan_delta: -expired, payg_delta: 0, period_start: end(k).toISOString() },
      ];
    }).flat();
    assert.deepEqual(entries, expected);
    assert.deepEqual(await services().credits.balance(org.id), { plan: 50, payg: 7, remaining: 57 });
    u = await usage(org);
    assert.deepEqual(u.credits, { remaining: 57, usedThisPeriod: 0, plan: 50, payg: 7 });
    assert.equal(u.plan.periodEnd, end(renewals + 1).toISOString());
    assert.equal(u.plan.periodStart, end(renewals).toISOString());
    assert.equal(u.plan.monthlyCredits, 50);
    assert.equal((await creditsLowAlerts(org)).length, 2, 'credits_low once per period with a submission');

    // In Temporal: the organisation's one plan-period workflow, running (a new run per period).
    // Visibility is eventually consistent: the closed runs can show up after the running one.
    const listed = await waitFor('the running workflow and its closed runs in the visibility store', async () => {
      const found = await planRuns(org.id);
      const continued = found.filter((wf) => wf.status.name === 'CONTINUED_AS_NEW').length;
      return found.some((wf) => wf.status.name === 'RUNNING') && continued >= 2 && found;
    });
    const running = listed.filter((wf) => wf.status.name === 'RUNNING');
    assert.deepEqual(
      running.map((wf) => wf.workflowId),
      [planPeriodWorkflowId(org.id)],
    );
    assert.equal(running[0]!.workflowId, `plan-period-${org.id}`);
    assert.ok(
      listed.filter((wf) => wf.status.name === 'CONTINUED_AS_NEW').length >= 2,
      'one run per renewed period, each continued as new',
    );
  });

  it('an organisation from before the upgrade, two periods behind: the relay lists it, its workflow renews both in turn', async () => {
    if (!workers) workers = await startTestWorkers(api.runtime, recognizer);
    const org = await createTestOrg(api.runtime, { plan: 'free', credits: 50 });
    // Never renewed, its period end long past, as the upgrade found it. Created long before every
    // other test's organisation: the relay takes the oldest 100 without a workflow a round, and the
    // run's database holds hundreds of other files' organisations created minutes ago (CI met it).
    const periodEnd = new Date(Date.now() - 1.5 * PERIOD_MS);
    const createdAt = new Date('2001-01-01T00:00:00Z');
    const backdate = (em: EntityManager, ensuredAt: Date | null) =>
      sql(
        em,
        `update organisations set created_at = ?, period_start = ?, period_end = ?, plan_workflow_ensured_at = ? where id = ?`,
        [createdAt, new Date(periodEnd.getTime() - PERIOD_MS), periodEnd, ensuredAt, org.id],
      );
    // What the relay takes, looked at in a transaction that is rolled back: committed without a
    // workflow, the relay of another test file's worker process could start it on its own queue.
    const queues = taskQueues(api.runtime.config.TASK_QUEUE_PREFIX);
    await assert.rejects(
      api.runtime.orm.em.fork().transactional(async (em) => {
        const relay = new PlanPeriodCommands(em, api.runtime.temporal.client, queues);
        await backdate(em, null);
        assert.ok((await relay.due(1000)).includes(org.id), 'no workflow yet (as the upgrade leaves every one)');
        await backdate(em, new Date(Date.now() - 5000));
        assert.ok((await relay.due(1000)).includes(org.id), 'overdue, its workflow last looked at 5 s ago');
        await backdate(em, new Date());
        assert.ok(!(await relay.due(1000)).includes(org.id), 'overdue, but its workflow was just started');
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    await backdate(api.runtime.orm.em.fork(), new Date());
    await api.runtime.commands.planPeriods.start(org.id);

    const second = new Date(periodEnd.getTime() + PERIOD_MS);
    await waitFor('both past periods renewed', () => renewedAt(org.id, second), 4 * PERIOD_MS, 100);
    const entries = (await renewalEntries(org.id)).filter((e) => e.period_start <= second.toISOString());
    assert.deepEqual(
      entries.map((e) => [e.reason, e.plan_delta, e.period_start]),
      [
        ['plan_allocation', 50, periodEnd.toISOString()],
        ['plan_expiry', -50, periodEnd.toISOString()],
        ['plan_allocation', 50, second.toISOString()],
        ['plan_expiry', -50, second.toISOString()],
      ],
    );
    const period = (await services().planPeriods.current(org.id))!;
    assert.ok(Date.parse(period.periodEnd) > Date.now() - PERIOD_MS, 'caught up to the current period');
  });

  it('a renewal committed by an attempt whose worker died before reporting: the retry renews nothing more', async () => {
    if (!workers) workers = await startTestWorkers(api.runtime, recognizer);
    const org = await createTestOrg(api.runtime, { plan: 'free', credits: 50 });
    const { periodEnd } = (await services().planPeriods.current(org.id))!;
    const client = api.runtime.temporal.client;
    assert.equal(await api.runtime.commands.planPeriods.start(org.id), true);
    assert.equal(await api.runtime.commands.planPeriods.start(org.id), false, 'running already: nothing changes');
    const handle = client.workflow.getHandle(planPeriodWorkflowId(org.id));
    const firstRun = (await handle.describe()).runId;
    // Once its timer is started the workflow has read the period end it will renew.
    await waitFor('the workflow sleeping to the period end', async () =>
      (await handle.fetchHistory()).events?.some((e) => e.timerStartedEventAttributes),
    );
    // The workflow sleeps to periodEnd; meanwhile "its" renewal commits (the attempt that died).
    const committed = await services().planPeriods.renew(org.id, periodEnd);
    assert.equal(committed!.renewed, true);
    // At periodEnd the workflow's own attempt finds it done and goes on to the next period.
    await waitFor(
      'the first run to continue as new',
      async () => (await handle.describe()).runId !== firstRun,
      4 * PERIOD_MS,
      100,
    );
    assert.deepEqual(
      (await renewalEntries(org.id)).map((e) => [e.reason, e.plan_delta, e.period_start]),
      [
        ['plan_allocation', 50, periodEnd],
        ['plan_expiry', -50, periodEnd],
      ],
    );
    assert.equal((await services().planPeriods.current(org.id))!.periodEnd, committed!.periodEnd);
    assert.deepEqual(await services().credits.balance(org.id), { plan: 50, payg: 0, remaining: 50 });
  });
});
