import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { childProcesses } from '../../../helpers/child-processes.js';
import { mainThreadCpuMs, poolOfPhoneSizedShelves } from '../../../helpers/phone-sized-shelves.js';
import { PooledLocalRecognizer } from '../../../../src/modules/recognition/engines/local/recognition-pool.js';
import type { RecognizeInput, Recognizer } from '../../../../src/modules/recognition/recognizer.js';
import { startTestApi, type TestApi } from '../../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../../helpers/fixtures.js';
import { startImageHost, type ImageHost } from '../../../helpers/image-host.js';
import { startReceiver } from '../../../helpers/receiver.js';
import { waitFor } from '../../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../../helpers/worker.js';

const PHOTOS = ['shelf-01', 'shelf-03', 'shelf-04', 'shelf-06', 'shelf-07', 'shelf-09'];
const THREADS = 2;

// A process of its own (it measures its own main thread's CPU time: npm test: own process). The
// share of the CPU time the photos take that the main thread spends is main-thread-share.test.ts's,
// which runs by itself.
describe('recognition at full load leaves the worker process responsive', () => {
  const shelves = poolOfPhoneSizedShelves(THREADS, PHOTOS);

  describe('with an API and workers in this process', () => {
    let api: TestApi;
    let org: TestOrg;
    let host: ImageHost;
    let stopWorkers: () => Promise<void>;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    const reading = new Set<number>();
    const durations: number[] = [];
    let seq = 0;

    before(async () => {
      api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('saturated-pool') });
      const recognizer = new PooledLocalRecognizer(shelves.pool());
      // The production recognizer, watched: which passes are being read right now, and how long each took.
      const watched: Recognizer = {
        name: 'local',
        async recognize(input: RecognizeInput) {
          const id = seq++;
          const started = performance.now();
          reading.add(id);
          try {
            return await recognizer.recognize(input);
          } finally {
            reading.delete(id);
            durations.push(performance.now() - started);
          }
        },
      };
      // Workflows on the workers' own threads, as in a worker process: this thread's event loop is watched.
      stopWorkers = (await startTestWorkers(api.runtime, watched, undefined, { workflowThreads: true })).stop;
      org = await createTestOrg(api.runtime, { credits: 20 });
      receiver = await startReceiver();
      host = await startImageHost(
        Object.fromEntries(PHOTOS.map((p) => [`/${p}.jpg`, { type: 'image/jpeg', body: shelves.photo(p) }])),
      );
    });
    after(async () => {
      await receiver.close();
      await stopWorkers();
      await host.close();
      await api.close();
    });

    it('delivers a webhook while every recognition thread is busy, and reports how long each took', async (t) => {
      const hook = await api.request('POST', '/webhooks', {
        key: org.keys.admin,
        body: { url: receiver.url, events: ['task.created'] },
      });
      assert.equal(hook.status, 201);
      const submitted: string[] = [];
      for (const p of PHOTOS) {
        const res = await api.request('POST', '/analyses', {
          key: org.keys.write,
          body: { imageUrl: host.url(`/${p}.jpg`) },
        });
        assert.equal(res.status, 202);
        submitted.push(res.body.data.id);
      }
      await waitFor('every thread reading a photo', async () => reading.size > THREADS, 120_000, 20);
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      const cpu0 = process.cpuUsage();
      const helpers0 = childProcesses().cpuSeconds;
      const main0 = mainThreadCpuMs();
      // Deliveries one after another while the photos are read; nothing else asks this process for work.
      const latencies: number[] = [];
      const busyAtDelivery: number[] = [];
      for (let n = 1; n <= 3; n++) {
        const sent = performance.now();
        const test = await api.request('POST', `/webhooks/${hook.body.data.id}/test`, { key: org.keys.admin });
        assert.equal(test.status, 200);
        await waitFor('the test delivery', async () => receiver.received.length === n, 60_000, 5);
        latencies.push(performance.now() - sent);
        busyAtDelivery.push(reading.size);
      }
      await waitFor('every photo read', async () => durations.length === PHOTOS.length, 300_000, 20);
      delay.disable();
      const cpu = process.cpuUsage(cpu0);
      const mainMs = mainThreadCpuMs() - main0;
      // The photos' CPU time: this process's threads, and the native OCR engine's helper processes.
      const processMs = (cpu.user + cpu.system) / 1000 + 1000 * (childProcesses().cpuSeconds - helpers0);
      t.diagnostic(
        JSON.stringify({
          latencies: latencies.map(Math.round),
          busyAtDelivery,
          eventLoopDelayMs: { max: delay.max / 1e6, p99: delay.percentile(99) / 1e6 },
          mainMs,
          processMs: Math.round(processMs),
          mainShare: mainMs / processMs,
          durations: durations.map(Math.round),
        }),
      );
      // Every delivery arrived while every thread was still reading a photo and more photos waited:
      // deliveries do not queue behind recognition.
      assert.ok(
        busyAtDelivery.every((n) => n > THREADS),
        `passes being read at each delivery: ${busyAtDelivery.join(', ')}`,
      );
      for (const id of submitted) {
        const a = await waitFor('the analysis', async () => {
          const res = await api.request('GET', `/analyses/${id}`, { key: org.keys.read });
          return res.body.data.status !== 'processing' && res.body.data;
        });
        assert.equal(a.status, 'completed');
      }
    });
  });
});
