import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { startReceiver } from '../../helpers/receiver.js';
import { ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { waitFor } from '../../helpers/wait.js';
import { startTestWorkers, TEST_ACTIVITY_SLOTS, uniquePrefix } from '../../helpers/worker.js';

/** A webhook receiver that reads each delivery and never answers; it counts what it holds open. */
async function hangingReceiver() {
  const open = new Set<ServerResponse>();
  let received = 0;
  let mostOpen = 0;
  let ended = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    received++;
    open.add(res);
    mostOpen = Math.max(mostOpen, open.size);
    res.on('close', () => {
      open.delete(res);
      ended++;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    stats: () => ({ received, open: open.size, mostOpen, ended }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe("a hanging webhook receiver holds only its own endpoint's delivery slots", () => {
  const PER_ENDPOINT = 2;
  let api: TestApi;
  let org: TestOrg;
  let stopWorkers: () => Promise<void>;

  before(async () => {
    api = await startTestApi({
      TASK_QUEUE_PREFIX: uniquePrefix('endpoint-isolation'),
      // Longer than the test waits for the other endpoint: a hung request ends only when the test does.
      WEBHOOK_TIMEOUT_MS: 30_000,
      WEBHOOK_RETRY_SCHEDULE_MS: [600_000],
      WEBHOOK_ENDPOINT_CONCURRENCY: PER_ENDPOINT,
    });
    stopWorkers = (await startTestWorkers(api.runtime, new ScriptedRecognizer(() => []))).stop;
    org = await createTestOrg(api.runtime);
  });
  after(async () => {
    await stopWorkers();
    await api.close();
  });

  const createHook = async (url: string) => {
    const res = await api.request('POST', '/webhooks', { key: org.keys.admin, body: { url, events: ['*'] } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data.id as string;
  };
  const sendTest = async (hookId: string) => {
    const res = await api.request('POST', `/webhooks/${hookId}/test`, { key: org.keys.admin });
    assert.ok(res.status < 300, JSON.stringify(res.body));
  };

  it("another endpoint's deliveries arrive while the hung one holds its slots, and it holds no more than its share", async () => {
    const hanging = await hangingReceiver();
    const healthy = await startReceiver();
    try {
      const stuck = await createHook(hanging.url);
      const fine = await createHook(healthy.url);
      // More deliveries to the hung endpoint than the worker has delivery slots of either kind.
      const toStuck = TEST_ACTIVITY_SLOTS + 4;
      for (let i = 0; i < toStuck; i++) await sendTest(stuck);
      await waitFor('the hung endpoint to hold its deliveries', async () => hanging.stats().open >= PER_ENDPOINT);
      const sent = Date.now();
      for (let i = 0; i < 3; i++) await sendTest(fine);
      await waitFor('the other endpoint to receive its three deliveries', async () => healthy.received.length === 3);

      const stats = hanging.stats();
      // Printed, not asserted: how long the other endpoint's three deliveries took beside the hung one.
      console.log(
        `  hung endpoint: ${JSON.stringify(stats)}; other endpoint received ${healthy.received.length} in ${healthy.received.at(-1)!.at - sent} ms`,
      );
      // Ordering, not time: every request the hung endpoint received is still open (none timed out
      // and freed a slot for the others), and it never held more than its share at once.
      assert.equal(stats.ended, 0, 'a hung request ended before the other endpoint had its deliveries');
      assert.ok(stats.mostOpen <= PER_ENDPOINT, `the hung endpoint held ${stats.mostOpen} deliveries at once`);
      assert.equal(stats.received, stats.open);
    } finally {
      await hanging.close();
      await healthy.close();
    }
  });
});
