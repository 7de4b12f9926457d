import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
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

/**
 * Images that cost far more than a photo. The audit's SVG (30 KB, 4096×4096, 300 chained blurs: a
 * worker at 7 GB for minutes), a TIFF and a GIF that inflate to 64 million pixels from a few KB, a
 * 16-bit RGBA PNG (8 bytes a pixel, not 3), and a photo that takes longer to read than the deadline.
 */
/** `tile` repeated `cols` × `rows` times in one JPEG. */
async function sideBySide(tile: Buffer, cols: number, rows: number): Promise<Buffer> {
  const { width, height } = await sharp(tile).metadata();
  return sharp({ create: { width: width! * cols, height: height! * rows, channels: 3, background: '#808080' } })
    .composite(
      Array.from({ length: cols * rows }, (_, i) => ({
        input: tile,
        left: (i % cols) * width!,
        top: Math.floor(i / cols) * height!,
      })),
    )
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function bombs(): Promise<Record<string, { body: Buffer; type: string }>> {
  const blurs = Array.from(
    { length: 300 },
    (_, i) => `<feGaussianBlur in="${i === 0 ? 'SourceGraphic' : `b${i - 1}`}" stdDeviation="50" result="b${i}"/>`,
  ).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="4096" height="4096"><filter id="f" x="0" y="0" width="1" height="1">${blurs}</filter><rect width="4096" height="4096" fill="#c33" filter="url(#f)"/></svg>`;
  const plain = (width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: '#7a7a7a' } });
  const dir = resolve(root, 'test/fixtures/second-generator-shelves');
  return {
    '/bomb.svg': { body: Buffer.from(svg), type: 'image/svg+xml' },
    '/bomb.tiff': { body: await plain(8000, 8000).tiff({ compression: 'deflate' }).toBuffer(), type: 'image/tiff' },
    // The GIF as sharp writes it (`plain(8000, 8000).gif()`), kept as a file: encoding 64 million
    // pixels took 4.4 s of CPU, a quarter of this file's, every run.
    '/bomb.gif': {
      body: readFileSync(resolve(root, 'test/fixtures/image-bombs/plain-8000x8000.gif')),
      type: 'image/gif',
    },
    '/deep.png': {
      body: await sharp({ create: { width: 5000, height: 5000, channels: 4, background: '#7a7a7aff' } })
        .toColourspace('rgb16')
        .png()
        .toBuffer(),
      type: 'image/png',
    },
    // With the deadline at 1 s it stands for an image that would hold a core for minutes: four of the
    // second generator's shelf-12 side by side, 4096 × 3072, 1.45–1.56 s of its thread's own
    // processor time with no catalogue (the OCR helpers' time is theirs), where an ordinary photo here
    // takes 0.14–0.22. shelf-12 alone, used before, had fallen to 1.07–1.2 s as the OCR moved out of
    // the thread: within one of the deadline's quarter-second looks, so it was read whole on some runs
    // and this test failed (Node 24, 2026-11-29).
    '/costly.jpg': { body: await sideBySide(readFileSync(`${dir}/shelf-12.jpg`), 2, 2), type: 'image/jpeg' },
  };
}

/** Starts a process's peak resident memory (VmHWM) again from its resident memory now (Linux). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

describe('huge images cost bounded work and memory', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let worker: ReturnType<typeof spawnWorker>;

  before(async () => {
    const prefix = uniquePrefix('huge-images');
    api = await startTestApi({ TASK_QUEUE_PREFIX: prefix });
    org = await createTestOrg(api.runtime, { credits: 20 });
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
      '/shelf-2.jpg': {
        body: readFileSync(resolve(root, 'test/fixtures/synthetic-shelves/shelf-03.jpg')),
        type: 'image/jpeg',
      },
      ...(await bombs()),
    });
    // The production worker with the real local recognizer, as its own process. A photo may take 1 s
    // of its thread's processor time: the ordinary ones here take 0.14–0.22.
    worker = spawnWorker(prefix, { env: { RECOGNIZER: 'local', LOG_LEVEL: 'error', RECOGNITION_DEADLINE_MS: '1000' } });
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
    resetPeak(process.pid);
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
    assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, 19);
  });

  it('image bombs sent among ordinary photos fail with IMAGE_UNSUPPORTED or IMAGE_TOO_COMPLEX, refunded; the photos are read; the processes grow by less than 1 GB', async () => {
    const before = (await api.runtime.services.credits.balance(org.id)).remaining;
    // The peaks so far (the bombs were made in this process) are not this test's.
    resetPeak(worker.child.pid!);
    resetPeak(process.pid);
    const start = { worker: memoryOf(worker.child.pid!).rss, api: memoryOf(process.pid).rss };
    const submit = async (path: string) =>
      (await api.request('POST', '/analyses', { key: org.keys.write, body: { imageUrl: host.url(path) } })).body.data
        .id as string;
    const expectations = async (expected: Record<string, string>) => {
      const submitted = await Promise.all(Object.keys(expected).map(async (p) => [p, await submit(p)] as const));
      for (const [path, id] of submitted) {
        const a = await final(id);
        // How long each took, submission to its final state (for the record; nothing is timed here).
        const took = (Date.parse(a.completedAt ?? a.updatedAt) - Date.parse(a.createdAt)) / 1000;
        console.log(`# ${path}: ${a.status}${a.error ? ` ${a.error.code}` : ''} in ${took.toFixed(2)} s`);
        if (expected[path] === 'completed') {
          assert.equal(a.status, 'completed', `${path}: ${JSON.stringify(a.error)}`);
          assert.ok(a.products.length > 0, `${path} is read`);
        } else {
          assert.equal(a.status, 'failed', path);
          assert.equal(a.error.code, expected[path], `${path}: ${a.error.message}`);
        }
      }
    };
    // Refused from their bytes and header, before any decoding, while ordinary photos are read.
    await expectations({
      '/shelf.jpg': 'completed',
      '/bomb.svg': 'IMAGE_UNSUPPORTED',
      '/bomb.tiff': 'IMAGE_UNSUPPORTED',
      '/bomb.gif': 'IMAGE_UNSUPPORTED',
      '/deep.png': 'IMAGE_TOO_COMPLEX',
      '/shelf-2.jpg': 'completed',
    });
    // A photo that holds its thread past the deadline is refused then (its thread leaves it off at its
    // next checkpoint and is kept: the worker process stays up), and the photos after it are read.
    await expectations({ '/costly.jpg': 'IMAGE_TOO_COMPLEX' });
    await expectations({ '/shelf.jpg': 'completed' });

    const end = { worker: memoryOf(worker.child.pid!).peak, api: memoryOf(process.pid).peak };
    const growthMb = Math.max(0, end.worker - start.worker) + Math.max(0, end.api - start.api);
    console.log(`# bombs: worker peak ${end.worker.toFixed(0)} MB, API peak ${end.api.toFixed(0)} MB`);
    assert.ok(growthMb < 1024, `resident memory grew by ${growthMb.toFixed(0)} MB`);
    // Five refused and refunded, three photos charged.
    assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, before - 3);
  });
});
