import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../src/db/sql.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { assertRefused, cliJson, runCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { startReceiver } from '../helpers/receiver.js';
import { ScriptedRecognizer } from '../helpers/scripted-recognizer.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../helpers/worker.js';

describe('operator CLI: webhooks:redeliver-failed', () => {
  let api: TestApi;
  let env: Record<string, string>;
  let stopWorkers: () => Promise<void>;

  before(async () => {
    // Two attempts a delivery, 100 ms apart: failures come quickly.
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('cli-redeliver'), WEBHOOK_RETRY_SCHEDULE_MS: [100] });
    env = { TASK_QUEUE_PREFIX: api.runtime.config.TASK_QUEUE_PREFIX, WEBHOOK_RETRY_SCHEDULE_MS: '100' };
    stopWorkers = (await startTestWorkers(api.runtime, new ScriptedRecognizer(() => []))).stop;
  });
  after(async () => {
    await stopWorkers();
    await api.close();
  });

  const hook = async (org: TestOrg, url: string) => {
    const res = await api.request('POST', '/webhooks', { key: org.keys.admin, body: { url, events: ['*'] } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data.id as string;
  };
  /** A webhook.test delivery to the hook, once its attempts have run out. */
  const failedDelivery = async (org: TestOrg, hookId: string) => {
    const res = await api.request('POST', `/webhooks/${hookId}/test`, { key: org.keys.admin });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const deliveryId = res.body.data.deliveryId as string;
    await waitFor(`${deliveryId} to fail`, async () => (await statusOf(deliveryId)) === 'failed');
    // And its workflow ended: the row says failed a moment before the workflow closes, and the command
    // leaves alone a pending delivery whose workflow still runs (a loaded run on Node 24 met it so).
    await api.runtime.temporal.client.workflow.getHandle(deliveryId).result();
    return deliveryId;
  };
  const statusOf = async (deliveryId: string) =>
    (
      await sql<{ status: string }>(api.runtime.orm.em.fork(), `select status from deliveries where id = ?`, [
        deliveryId,
      ])
    )[0]!.status;

  it('a dry run lists the failed deliveries and sends nothing; the real run sends them again under the same delivery ids, skipping disabled webhooks', async () => {
    const org = await createTestOrg(api.runtime);
    let up = false;
    const receiver = await startReceiver(() => (up ? 200 : 500));
    const other = await startReceiver(() => 500);
    const since = new Date().toISOString();
    const hookId = await hook(org, receiver.url);
    const disabledHook = await hook(org, other.url);
    const ids = [await failedDelivery(org, hookId), await failedDelivery(org, hookId)];
    const toDisabled = await failedDelivery(org, disabledHook);
    const patched = await api.request('PATCH', `/webhooks/${disabledHook}`, {
      key: org.keys.admin,
      body: { status: 'disabled' },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const sentBefore = receiver.received.length;
    assert.equal(sentBefore, 4);

    const dry = await cliJson(env, 'webhooks:redeliver-failed', '--org', org.id, '--since', since, '--dry-run');
    assert.equal(dry.dryRun, true);
    const byId = new Map(dry.deliveries.map((d: any) => [d.deliveryId, d]));
    assert.equal(byId.size, 3);
    for (const id of ids) {
      assert.equal((byId.get(id) as any).outcome, 'would_redeliver');
      assert.equal((byId.get(id) as any).attempts, 2);
      assert.equal((byId.get(id) as any).lastStatusCode, 500);
    }
    assert.equal((byId.get(toDisabled) as any).outcome, 'skipped');
    assert.match((byId.get(toDisabled) as any).reason, /disabled/);
    assert.equal(receiver.received.length, sentBefore, 'a dry run sends nothing');
    for (const id of ids) assert.equal(await statusOf(id), 'failed');

    up = true;
    const run = await runCli(env, 'webhooks:redeliver-failed', '--org', org.id, '--since', since);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /redelivered 2 of 3 deliveries/);
    for (const id of ids) await waitFor(`${id} to succeed`, async () => (await statusOf(id)) === 'succeeded');
    const resent = receiver.received.slice(sentBefore).map((r) => r.headers['x-service-delivery']);
    assert.deepEqual([...resent].sort(), [...ids].sort(), 'the same delivery ids, once each');
    assert.equal(await statusOf(toDisabled), 'failed');
    assert.equal(other.received.length, 2, 'nothing sent to the disabled webhook');

    // Nothing failed is left but the disabled webhook's.
    const again = await cliJson(env, 'webhooks:redeliver-failed', '--org', org.id, '--since', since);
    assert.deepEqual(
      again.deliveries.map((d: any) => [d.deliveryId, d.outcome]),
      [[toDisabled, 'skipped']],
    );
    await receiver.close();
    await other.close();
  });

  it('after a crash between reopening a delivery and starting it, running the command again sends it', async () => {
    const org = await createTestOrg(api.runtime);
    let up = false;
    const receiver = await startReceiver(() => (up ? 200 : 500));
    const since = new Date().toISOString();
    const id = await failedDelivery(org, await hook(org, receiver.url));
    // What a redelivery that died right after its reopen leaves: pending, no workflow running.
    await sql(
      api.runtime.orm.em.fork(),
      `update deliveries set status = 'pending', completed_at = null, updated_at = now() where id = ?`,
      [id],
    );
    up = true;
    const run = await cliJson(env, 'webhooks:redeliver-failed', '--org', org.id, '--since', since);
    assert.deepEqual(
      run.deliveries.map((d: any) => [d.deliveryId, d.status, d.outcome]),
      [[id, 'pending', 'redelivered']],
    );
    await waitFor('the delivery to succeed', async () => (await statusOf(id)) === 'succeeded');
    assert.equal(receiver.received.at(-1)!.headers['x-service-delivery'], id);
    await receiver.close();
  });

  it('bad input: exit code 2 and the reason', async () => {
    const org = await createTestOrg(api.runtime);
    assertRefused(await runCli(env, 'webhooks:redeliver-failed', '--org', org.id), /--since is required/);
    assertRefused(
      await runCli(env, 'webhooks:redeliver-failed', '--org', org.id, '--since', '2026-13-45T00:00:00Z'),
      /--since must be an ISO 8601 time/,
    );
    assertRefused(
      await runCli(env, 'webhooks:redeliver-failed', '--since', '2026-01-01T00:00:00Z'),
      /--org is required/,
    );
    assertRefused(
      await runCli(env, 'webhooks:redeliver-failed', '--org', 'org_nope', '--since', '2026-01-01T00:00:00Z'),
      /No organisation with id 'org_nope'/,
    );
  });
});
