import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { pngOfWidth } from '../helpers/image-host.js';
import { ScriptedRecognizer } from '../helpers/scripted-recognizer.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorkers, TEST_ACTIVITY_SLOTS, uniquePrefix } from '../helpers/worker.js';

const IMAGES = 24;

/**
 * Image fetches are local activities (the analysis workflow's `local-fetch`): they must stay within the
 * worker's activity slots, as they did as ordinary activities, however many analyses a batch starts at
 * once (each fetch may hold a database connection and an image's bytes).
 */
describe('local activities share the worker’s activity slots', () => {
  let api: TestApi;
  let org: TestOrg;
  let stopWorkers: () => Promise<void>;
  let inFlight = 0;
  let most = 0;
  let served = 0;
  const host = createServer((_req, res) => {
    inFlight++;
    most = Math.max(most, inFlight);
    // Slow enough that a batch's fetches overlap: how many are open at once is the bound.
    setTimeout(() => {
      inFlight--;
      served++;
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    }, 400);
  });
  let png: Buffer;

  before(async () => {
    png = await pngOfWidth(50);
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('la-slots'), ANALYSIS_RUNS: 1 });
    stopWorkers = (await startTestWorkers(api.runtime, new ScriptedRecognizer(() => []))).stop;
    org = await createTestOrg(api.runtime, { credits: IMAGES, maxBatchSize: IMAGES });
  });
  after(async () => {
    await stopWorkers();
    await api.close();
    host.closeAllConnections();
    await new Promise((r) => host.close(r));
  });

  it(`fetches a batch of ${IMAGES} images at most ${TEST_ACTIVITY_SLOTS} at a time`, async () => {
    const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    const res = await api.request('POST', '/analyses/batch', {
      key: org.keys.write,
      body: { images: Array.from({ length: IMAGES }, (_, i) => ({ imageUrl: `${base}/shelf-${i}.png` })) },
    });
    assert.equal(res.status, 202);
    await waitFor(
      'every analysis of the batch to complete',
      async () => {
        const batch = await api.request('GET', `/analyses/batch/${res.body.data.batchId}`, { key: org.keys.read });
        return batch.body.data.completed === IMAGES;
      },
      60_000,
    );
    assert.equal(served, IMAGES);
    assert.ok(most <= TEST_ACTIVITY_SLOTS, `${most} fetches at once`);
    assert.ok(most > 1, 'the fetches overlapped');
  });
});
