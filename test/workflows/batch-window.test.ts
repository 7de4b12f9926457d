import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BATCH_WINDOW, batchProgressQuery } from '../../src/temporal/contracts/analysis.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../helpers/image-host.js';
import { product, ScriptedRecognizer } from '../helpers/scripted-recognizer.js';
import { recordHistory } from '../helpers/record-history.js';
import { batchCompleted } from '../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../helpers/worker.js';

/**
 * A batch keeps at most BATCH_WINDOW analyses in flight (D214): the rest wait in the batch workflow,
 * not as image fetches queued in the analyses worker ahead of other organisations' photos (D210).
 * Read from Temporal itself: each child's start and close time.
 */
describe('a batch starts its analyses through a window', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let workers: Awaited<ReturnType<typeof startTestWorkers>>;

  // Each recognition takes a while, so without the window every child of the batch is open at once.
  const recognizer = new ScriptedRecognizer(async () => {
    await new Promise((r) => setTimeout(r, 300));
    return [product({ brand: 'Coca-Cola', description: 'Coke 330ml can' })];
  });

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('batch-window'), ANALYSIS_RUNS: 1 });
    workers = await startTestWorkers(api.runtime, recognizer);
    org = await createTestOrg(api.runtime, { credits: 100, maxBatchSize: 50 });
    host = await startImageHost({
      '/coke.png': { body: await pngOfWidth(100) },
      '/page.html': { type: 'text/html', body: '<html>not an image</html>' },
    });
  });
  after(async () => {
    await workers.stop();
    await host.close();
    await api.close();
  });

  it(`a batch of 12 never has more than ${BATCH_WINDOW} analyses running at once, and all complete`, async () => {
    assert.ok(BATCH_WINDOW < 12, 'the batch is larger than the window');
    const images = Array.from({ length: 12 }, (_, i) => ({
      imageUrl: host.url(i === 5 ? '/page.html' : '/coke.png'),
      externalId: `window-${i}`,
    }));
    const res = await api.request('POST', '/analyses/batch', { key: org.keys.write, body: { images } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const batchId = res.body.data.batchId as string;
    const ids = (res.body.data.analyses as { id: string }[]).map((a) => a.id);
    assert.equal(ids.length, 12);

    const batch = await batchCompleted(api, batchId, org.keys.read);
    assert.equal(batch.total, 12);
    assert.equal(batch.completed, 11);
    assert.equal(batch.failed, 1);

    const handle = api.runtime.temporal.client.workflow.getHandle(batchId);
    assert.deepEqual(await handle.result(), { status: 'completed', total: 12, completed: 11, failed: 1 });
    assert.deepEqual(await handle.query(batchProgressQuery), {
      status: 'completed',
      total: 12,
      completed: 11,
      failed: 1,
    });

    // Every child ran to its end; how many were open at once, from the server's own times (a close
    // at the same instant as a start counts first: the window starts the next when one has closed).
    const children = await Promise.all(ids.map((id) => api.runtime.temporal.client.workflow.getHandle(id).describe()));
    const points: [number, number][] = [];
    for (const c of children) {
      assert.equal(c.status.name, 'COMPLETED', c.workflowId);
      assert.equal(c.parentExecution?.workflowId, batchId);
      points.push([c.startTime.getTime(), +1], [c.closeTime!.getTime(), -1]);
    }
    points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let open = 0;
    let most = 0;
    for (const [, d] of points) most = Math.max(most, (open += d));
    assert.equal(most, BATCH_WINDOW, `at most ${most} children open at once`);

    // How test/fixtures/histories/batch-window-twelve-children.json was recorded (README there).
    await recordHistory(api.runtime.temporal.client, batchId, process.env.RECORD_BATCH_HISTORY);
  });
});
