import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { startReceiver } from '../../helpers/receiver.js';
import { forgetKilledWorker, timerStarted, waitFor } from '../../helpers/wait.js';
import { uniquePrefix } from '../../helpers/worker.js';
import { spawnWorker, stopProcess } from '../../helpers/worker-processes.js';

describe('delivery durability', () => {
  let api: TestApi;
  let org: TestOrg;
  const prefix = uniquePrefix('delivery-durability');
  const children: ChildProcess[] = [];

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: prefix, WEBHOOK_RETRY_SCHEDULE_MS: [4000, 4000] });
    org = await createTestOrg(api.runtime);
  });
  after(async () => {
    for (const c of children) await stopProcess(c);
    await api.close();
  });

  it('a worker killed while a delivery waits for its retry loses nothing: a new worker makes the next attempt', async () => {
    const receiver = await startReceiver((_r, n) => (n === 1 ? 500 : 200));
    const hook = await api.request('POST', '/webhooks', {
      key: org.keys.admin,
      body: { url: receiver.url, events: ['*'] },
    });
    const { child: first } = spawnWorker(prefix);
    children.push(first);
    const test = await api.request('POST', `/webhooks/${hook.body.data.id}/test`, { key: org.keys.admin });
    await waitFor('the first attempt', async () => receiver.received.length === 1);
    // Kill it once the attempt is recorded and the workflow sleeps on its retry timer: killed any
    // earlier, the attempt's activity would be in flight and only retried after its 45 s timeout.
    await timerStarted(api.runtime.temporal.client, test.body.data.deliveryId);
    await stopProcess(first);
    await forgetKilledWorker(api.runtime.temporal.client, api.runtime.config.TEMPORAL_NAMESPACE, [
      test.body.data.deliveryId,
    ]);

    const { child: second } = spawnWorker(prefix);
    children.push(second);
    await waitFor('the second attempt, from the new worker', async () => receiver.received.length === 2, 60_000);
    const [delivery] = (await api.request('GET', `/webhooks/${hook.body.data.id}/deliveries`, { key: org.keys.admin }))
      .body.data;
    assert.equal(delivery.id, test.body.data.deliveryId);
    await waitFor(
      'succeeded',
      async () =>
        (await api.request('GET', `/webhooks/${hook.body.data.id}/deliveries`, { key: org.keys.admin })).body.data[0]
          .status === 'succeeded',
    );
    assert.deepEqual(
      receiver.received.map((r) => r.headers['x-service-delivery']),
      [delivery.id, delivery.id],
    );
    assert.ok(
      receiver.received[1]!.at - receiver.received[0]!.at >= 3900,
      'the durable timer kept its schedule across the crash',
    );
    await receiver.close();
  });
});
