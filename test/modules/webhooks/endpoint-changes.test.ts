import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyWebhookSignature } from '../../../clients/typescript/src/webhooks.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { startReceiver } from '../../helpers/receiver.js';
import { ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

const WAIT_MS = 1500;

describe("queued retries follow the endpoint's current URL and secret, and stop when it is deleted", () => {
  let api: TestApi;
  let org: TestOrg;
  let stopWorkers: () => Promise<void>;

  before(async () => {
    api = await startTestApi({
      TASK_QUEUE_PREFIX: uniquePrefix('endpoint-changes'),
      WEBHOOK_RETRY_SCHEDULE_MS: Array(7).fill(WAIT_MS),
    });
    stopWorkers = (await startTestWorkers(api.runtime, new ScriptedRecognizer(() => []))).stop;
    org = await createTestOrg(api.runtime);
  });
  after(async () => {
    await stopWorkers();
    await api.close();
  });

  it('a failing delivery retried after a URL change and a secret rotation goes to the new URL, signed with the new secret', async () => {
    const oldUrl = await startReceiver(() => 500);
    const newUrl = await startReceiver(() => 200);
    const hook = await api.request('POST', '/webhooks', {
      key: org.keys.admin,
      body: { url: oldUrl.url, events: ['*'] },
    });
    const sent = await api.request('POST', `/webhooks/${hook.body.data.id}/test`, { key: org.keys.admin });
    assert.equal(sent.status, 200, sent.text);
    await waitFor('the first attempt at the old URL', async () => oldUrl.received.length >= 1);
    const patched = await api.request('PATCH', `/webhooks/${hook.body.data.id}`, {
      key: org.keys.admin,
      body: { url: newUrl.url },
    });
    assert.equal(patched.status, 200);
    const rotated = await api.request('POST', `/webhooks/${hook.body.data.id}/rotate-secret`, { key: org.keys.admin });
    const atOld = oldUrl.received.length;
    await waitFor('the retry at the new URL', async () => newUrl.received.length >= 1, 30_000);
    assert.equal(oldUrl.received.length, atOld, 'nothing more went to the old URL');
    const r = newUrl.received[0]!;
    assert.equal(r.headers['x-service-delivery'], sent.body.data.deliveryId);
    assert.doesNotThrow(() =>
      verifyWebhookSignature(r.raw, String(r.headers['x-service-signature']), rotated.body.data.secret),
    );
    await oldUrl.close();
    await newUrl.close();
  });

  it('deleting the endpoint stops its queued retries', async () => {
    const failing = await startReceiver(() => 500);
    const hook = await api.request('POST', '/webhooks', {
      key: org.keys.admin,
      body: { url: failing.url, events: ['*'] },
    });
    const sent = await api.request('POST', `/webhooks/${hook.body.data.id}/test`, { key: org.keys.admin });
    await waitFor('the first attempt', async () => failing.received.length >= 1);
    assert.equal((await api.request('DELETE', `/webhooks/${hook.body.data.id}`, { key: org.keys.admin })).status, 200);
    const handle = api.runtime.temporal.client.workflow.getHandle(sent.body.data.deliveryId);
    await handle.result();
    const count = failing.received.length;
    assert.ok(count <= 2, `at most the attempt already under way when it was deleted: ${count}`);
    await new Promise((r) => setTimeout(r, WAIT_MS * 2));
    assert.equal(failing.received.length, count, 'no attempt after the delivery ended');
    await failing.close();
  });
});
