import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { startImageHost, type ImageHost } from '../../helpers/image-host.js';
import { waitFor } from '../../helpers/wait.js';
import { uniquePrefix } from '../../helpers/worker.js';
import { spawnWorker, stopProcess } from '../../helpers/worker-processes.js';

const root = resolve(import.meta.dirname, '../../..');

/** Resident and peak resident memory of a process, in MB, from the kernel. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

describe('huge images cost bounded work and memory', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let worker: ReturnType<typeof spawnWorker>;

  before(async () => {
    const prefix = uniquePrefix('huge-images');
    api = await startTestApi({ TASK_QUEUE_PREFIX: prefix });
    org = await createTestOrg(api.runtime, { credits: 10 });
    // 10000×10000 white: a few hundred KB on the wire, 300 MB once decoded.
    const huge = await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: '#ffffff' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    host = await startImageHost({
      '/huge.png': { body: huge },
      '/shelf.jpg': {
        body: readFileSync(resolve(root, 'test/fixtures/synthetic-shelves/shelf-01.jpg')),
        type: 'image/jpeg',
      },
    });
    // The production worker with the real local recognizer, as its own process.
    worker = spawnWorker(prefix, { env: { RECOGNIZER: 'local', LOG_LEVEL: 'error' } });
  });
  after(async () => {
    await stopProcess(worker.child, 'SIGTERM');
    await host.close();
    await api.close();
  });

  async function final(id: string) {
    return waitFor(
      `analysis ${id}`,
      async () => {
        const r = await api.request('GET', `/analyses/${id}`, { key: org.keys.read });
        return r.body.data.status !== 'processing' && r.body.data;
      },
      180_000,
    );
  }

  it('four 10000×10000 images at once fail with a clear code, a normal photo completes next, and the processes grow by less than 1 GB', async () => {
    // The baseline as the worker starts up: its start-up counts as growth too (a bound on the whole).
    await waitFor('the worker to start', async () => memoryOf(worker.child.pid!).rss > 50, 60_000);
    const start = { worker: memoryOf(worker.child.pid!).rss, api: memoryOf(process.pid).rss };

    const submitted = await Promise.all(
      Array.from({ length: 4 }, () =>
        api.request('POST', '/analyses', { key: org.keys.write, body: { imageUrl: host.url('/huge.png') } }),
      ),
    );
    const huge = await Promise.all(submitted.map((s) => final(s.body.data.id)));
    for (const a of huge) {
      assert.equal(a.status, 'failed');
      assert.equal(a.error.code, 'IMAGE_TOO_LARGE');
      assert.match(a.error.message, /10000×10000/);
    }
    const normal = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/shelf.jpg') },
    });
    const done = await final(normal.body.data.id);
    assert.equal(done.status, 'completed');
    assert.ok(done.products.length > 0, 'the normal photo is read');

    const end = { worker: memoryOf(worker.child.pid!).peak, api: memoryOf(process.pid).peak };
    const growthMb = end.worker - start.worker + (end.api - start.api);
    console.log(
      `# memory: worker ${start.worker.toFixed(0)} -> peak ${end.worker.toFixed(0)} MB, API ${start.api.toFixed(0)} -> peak ${end.api.toFixed(0)} MB, growth ${growthMb.toFixed(0)} MB`,
    );
    assert.ok(growthMb < 1024, `resident memory grew by ${growthMb.toFixed(0)} MB`);
    // Refused images are refunded: four refunds, one charge.
    assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, 9);
  });
});
