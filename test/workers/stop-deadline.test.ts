import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../helpers/image-host.js';
import { uniquePrefix } from '../helpers/worker.js';
import { spawnWorker, stopProcess } from '../helpers/worker-processes.js';

describe('worker shutdown', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  const prefix = uniquePrefix('stop-deadline');

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: prefix });
    org = await createTestOrg(api.runtime, { credits: 5 });
    host = await startImageHost({ '/beans.png': { body: await pngOfWidth(90) } });
  });
  after(async () => {
    await host.close();
    await api.close();
  });

  it('a worker told to stop while a step ignores its cancellation exits at WORKER_STOP_DEADLINE_MS instead of running on', async () => {
    // The pass sleeps ten minutes and does not listen for cancellation, as a decode in native code would.
    const worker = spawnWorker(prefix, { env: { SLOW_RECOGNIZER_MS: '600000', WORKER_STOP_DEADLINE_MS: '2000' } });
    try {
      const res = await api.request('POST', '/analyses', {
        key: org.keys.write,
        body: { imageUrl: host.url('/beans.png') },
      });
      assert.equal(res.status, 202);
      await worker.printed('RECOGNIZING');
      const exited = new Promise<number | null>((r) => worker.child.once('exit', (code) => r(code)));
      worker.child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 60_000))]);
      assert.equal(code, 1, 'the worker exits on its own, past its stop deadline');
    } finally {
      await stopProcess(worker.child);
    }
  });
});
