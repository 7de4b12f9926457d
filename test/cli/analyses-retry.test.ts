import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RequestContext } from '@mikro-orm/core';
import { sql } from '../../src/db/sql.js';
import { AnalysisRetryService } from '../../src/modules/analyses/analysis-retry.service.js';
import { RecognitionRejectedError } from '../../src/modules/recognition/recognizer.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { assertRefused, cliJson, runCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../helpers/image-host.js';
import { product, ScriptedRecognizer } from '../helpers/scripted-recognizer.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../helpers/worker.js';

describe('operator CLI: analyses:retry', () => {
  let api: TestApi;
  let host: ImageHost;
  let env: Record<string, string>;
  let stopWorkers: () => Promise<void>;
  /** The engine fails every pass (as a definite refusal, so without retries) until a test says otherwise. */
  let failing = true;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('cli-retry') });
    env = { TASK_QUEUE_PREFIX: api.runtime.config.TASK_QUEUE_PREFIX };
    const recognizer = new ScriptedRecognizer(() => {
      if (failing) throw new RecognitionRejectedError('the engine refused this image');
      return [product({ brand: 'Heinz', description: 'Baked Beans', units: 3, price: 1.5 })];
    });
    stopWorkers = (await startTestWorkers(api.runtime, recognizer)).stop;
    host = await startImageHost({ '/shelf.png': { body: await pngOfWidth(64) } });
  });
  after(async () => {
    await stopWorkers();
    await host.close();
    await api.close();
  });

  const submit = async (org: TestOrg) => {
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/shelf.png') },
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    return res.body.data.id as string;
  };
  const settled = (org: TestOrg, id: string, status?: string) =>
    waitFor(
      `${id} to be ${status ?? 'final'}`,
      async () => {
        const a = (await api.request('GET', `/analyses/${id}`, { key: org.keys.read })).body.data;
        return a.status !== 'processing' && (!status || a.status === status) && a;
      },
      60_000,
    );
  const credits = async (org: TestOrg) => (await cliJson(env, 'credits:show', '--org', org.id)).remaining as number;
  const ledger = (id: string) =>
    sql<{ reason: string; attempt: number; delta: number }>(
      api.runtime.orm.em.fork(),
      `select reason, attempt, plan_delta + payg_delta as delta from credit_entries where analysis_id = ? order by created_at, reason`,
      [id],
    );
  const eventTypes = async (id: string) =>
    (
      await sql<{ type: string }>(
        api.runtime.orm.em.fork(),
        `select type from events where analysis_id = ? order by created_at`,
        [id],
      )
    ).map((e) => e.type);
  const runsOf = async (id: string) => {
    const runs = [];
    for await (const w of api.runtime.temporal.client.workflow.list({ query: `WorkflowId = '${id}'` })) runs.push(w);
    return runs;
  };

  it('re-runs a failed analysis as a new workflow run; its refunded credit is charged again once, refunded again if it fails again', async () => {
    failing = true;
    const org = await createTestOrg(api.runtime, { credits: 5 });
    const id = await submit(org);
    const failed = await settled(org, id, 'failed');
    assert.equal(failed.error.code, 'RECOGNITION_FAILED');
    assert.equal(await credits(org), 5, 'the failure refunded its credit');

    // Retry 1 fails again: charged, then refunded, once each.
    const first = await cliJson(env, 'analyses:retry', '--org', org.id, '--id', id);
    assert.equal(first.dryRun, false);
    assert.deepEqual(
      first.analyses.map((a: any) => [a.analysisId, a.outcome, a.retry, a.charge, a.started]),
      [[id, 'retried', 1, true, true]],
    );
    await settled(org, id, 'failed');
    assert.equal(await credits(org), 5);

    // Retry 2 succeeds: charged once, and the analysis reads as a normal completed one.
    failing = false;
    const second = await runCli(env, 'analyses:retry', '--org', org.id, '--id', id);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, new RegExp(`${id}\\s+retried\\s+retry 2, 1 credit \\(was RECOGNITION_FAILED\\)`));
    const done = await settled(org, id, 'completed');
    assert.equal(done.error, null);
    assert.equal(done.productCount, 1);
    assert.equal(await credits(org), 4);

    assert.deepEqual(
      (await ledger(id)).map((e) => `${e.reason}#${e.attempt}:${e.delta}`),
      ['analysis#0:-1', 'refund#0:1', 'analysis#1:-1', 'refund#1:1', 'analysis#2:-1'],
    );
    // Each run reported its own outcome to webhooks and callbacks.
    assert.deepEqual(await eventTypes(id), ['analysis.failed', 'analysis.failed', 'analysis.completed']);
    const runs = await waitFor('three closed runs', async () => {
      const r = await runsOf(id);
      return r.length === 3 && r.every((w) => w.status.name === 'COMPLETED') && r;
    });
    assert.equal(new Set(runs.map((r) => r.runId)).size, 3);

    // Completed now: nothing to retry, nothing charged.
    assertRefused(await runCli(env, 'analyses:retry', '--org', org.id, '--id', id), /is completed: only failed/);
    assert.equal(await credits(org), 4);
  });

  it('--status failed --since: a dry run lists what would happen and changes nothing; the real run retries them all', async () => {
    failing = true;
    const org = await createTestOrg(api.runtime, { credits: 3 });
    const before = new Date();
    const ids = [await submit(org), await submit(org)];
    for (const id of ids) await settled(org, id, 'failed');
    const since = before.toISOString();

    const dry = await cliJson(
      env,
      'analyses:retry',
      '--org',
      org.id,
      '--status',
      'failed',
      '--since',
      since,
      '--dry-run',
    );
    assert.equal(dry.dryRun, true);
    assert.equal(dry.creditsNeeded, 2);
    assert.equal(dry.creditsRemaining, 3);
    assert.deepEqual(dry.analyses.map((a: any) => a.analysisId).sort(), [...ids].sort());
    assert.ok(dry.analyses.every((a: any) => a.outcome === 'would_retry' && a.retry === 1 && a.charge));
    // Nothing changed: still failed, same credits, one run each.
    for (const id of ids) {
      assert.equal((await api.request('GET', `/analyses/${id}`, { key: org.keys.read })).body.data.status, 'failed');
      assert.equal((await runsOf(id)).length, 1);
    }
    assert.equal(await credits(org), 3);
    // A later --since selects none of them.
    const later = await cliJson(
      env,
      'analyses:retry',
      '--org',
      org.id,
      '--status',
      'failed',
      '--since',
      new Date(Date.now() + 60_000).toISOString(),
      '--dry-run',
    );
    assert.deepEqual(later.analyses, []);

    failing = false;
    const real = await cliJson(env, 'analyses:retry', '--org', org.id, '--status', 'failed', '--since', since);
    assert.equal(real.analyses.length, 2);
    assert.ok(real.analyses.every((a: any) => a.outcome === 'retried' && a.started === true));
    for (const id of ids) await settled(org, id, 'completed');
    assert.equal(await credits(org), 1);
  });

  it('refuses when the organisation lacks the credits, and changes nothing', async () => {
    failing = true;
    const org = await createTestOrg(api.runtime, { credits: 1 });
    const id = await submit(org);
    await settled(org, id, 'failed');
    // The refunded credit goes to another submission, which completes.
    failing = false;
    await settled(org, await submit(org), 'completed');
    assert.equal(await credits(org), 0);

    const dry = await cliJson(env, 'analyses:retry', '--org', org.id, '--id', id, '--dry-run');
    assert.equal(dry.creditsNeeded, 1);
    assert.equal(dry.creditsRemaining, 0);
    assertRefused(
      await runCli(env, 'analyses:retry', '--org', org.id, '--id', id),
      /needs 1 credit\(s\); org_\w+ has 0\. Nothing was retried/,
    );
    assert.equal((await api.request('GET', `/analyses/${id}`, { key: org.keys.read })).body.data.status, 'failed');
    assert.equal((await runsOf(id)).length, 1);
    assert.deepEqual(
      (await ledger(id)).map((e) => e.reason),
      ['analysis', 'refund'],
    );
  });

  it('a retry whose start was lost (the CLI died after its commit) is started by the relay, batch members too; an unrefunded failure is retried without a charge', async () => {
    failing = true;
    const org = await createTestOrg(api.runtime, { credits: 2 });
    const res = await api.request('POST', '/analyses/batch', {
      key: org.keys.write,
      body: { images: [{ imageUrl: host.url('/shelf.png') }] },
    });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const { batchId } = res.body.data;
    const id = res.body.data.analyses[0].id as string;
    await settled(org, id, 'failed');
    // A failure whose refund never happened: the retry must not charge it a second time.
    const em = api.runtime.orm.em.fork();
    await sql(em, `delete from credit_entries where analysis_id = ? and reason = 'refund'`, [id]);
    await sql(em, `update organisations set plan_credits = plan_credits - 1 where id = ?`, [org.id]);
    const dry = await cliJson(env, 'analyses:retry', '--org', org.id, '--id', id, '--dry-run');
    assert.deepEqual(
      dry.analyses.map((a: any) => [a.analysisId, a.retry, a.charge]),
      [[id, 1, false]],
    );
    assert.equal(dry.creditsNeeded, 0);

    // What the CLI commits before its start call; then it dies.
    failing = false;
    await new AnalysisRetryService(api.runtime.orm.em.fork(), api.runtime.services.credits).reset(org.id, id);
    assert.equal((await runsOf(id)).length, 1, 'not started');
    await RequestContext.create(api.runtime.orm.em, () => api.runtime.commands.analyses.sweep(0));
    await settled(org, id, 'completed');
    const batch = await waitFor('the batch to count it', async () => {
      const b = (await api.request('GET', `/analyses/batch/${batchId}`, { key: org.keys.read })).body.data;
      return b.completed === 1 && b;
    });
    assert.equal(batch.failed, 0);
    assert.equal(await credits(org), 1, 'no second charge');
    assert.deepEqual(
      (await ledger(id)).map((e) => `${e.reason}#${e.attempt}`),
      ['analysis#0'],
    );
  });

  it('Temporal unreachable: the retry is committed and left to the relay, said so on stdout; logs go to stderr only', async () => {
    failing = true;
    const org = await createTestOrg(api.runtime, { credits: 2 });
    const id = await submit(org);
    await settled(org, id, 'failed');
    // Nothing listens on port 1.
    const run = await runCli(
      { ...env, TEMPORAL_ADDRESS: '127.0.0.1:1', LOG_LEVEL: 'warn' },
      'analyses:retry',
      '--org',
      org.id,
      '--id',
      id,
      '--json',
    );
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.deepEqual(
      report.analyses.map((a: any) => [a.analysisId, a.outcome, a.charge, a.started]),
      [[id, 'retried', true, false]],
    );
    assert.match(run.stderr, /"msg":"retry start deferred to the relay"/);
    // The retry is committed: counted on the row. Its workflow is the relay's to start: this test's
    // sweep below (no other test file runs a relay on this database: spawnWorker refuses it).
    const [row] = await sql<{ retries: number }>(
      api.runtime.orm.em.fork(),
      `select retries from analyses where id = ?`,
      [id],
    );
    assert.equal(row?.retries, 1);
    failing = false;
    await RequestContext.create(api.runtime.orm.em, () => api.runtime.commands.analyses.sweep(0));
    await settled(org, id, 'completed');
  });

  it('bad input: exit code 2 and the reason', async () => {
    const org = await createTestOrg(api.runtime, { credits: 1 });
    assertRefused(await runCli(env, 'analyses:retry', '--id', 'an_x'), /--org is required/);
    assertRefused(await runCli(env, 'analyses:retry', '--org', org.id), /give --id/);
    assertRefused(
      await runCli(env, 'analyses:retry', '--org', org.id, '--id', 'an_x', '--since', '2026-01-01T00:00:00Z'),
      /not both/,
    );
    assertRefused(
      await runCli(env, 'analyses:retry', '--org', org.id, '--status', 'completed', '--since', '2026-01-01T00:00:00Z'),
      /--status must be one of failed/,
    );
    assertRefused(
      await runCli(env, 'analyses:retry', '--org', org.id, '--status', 'failed', '--since', 'yesterday'),
      /--since must be an ISO 8601 time/,
    );
    assertRefused(
      await runCli(env, 'analyses:retry', '--org', org.id, '--id', 'an_nope'),
      /No analysis with id 'an_nope'/,
    );
    assertRefused(await runCli(env, 'analyses:retry', '--org', 'org_nope', '--id', 'an_nope'), /No organisation/);
    assertRefused(await runCli(env, 'analyses:retry', '--org', org.id, '--dry-run=yes'), /--dry-run/);
  });
});
