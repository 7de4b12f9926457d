// `DATABASE_URL=postgres://… npm run bench:recognition-latency -- [--seconds 60] [--every 150]` (--every 0: no photos)
// The rest of a worker process while its recognition threads are saturated: the real worker set
// (createWorkers, the local recognizer's thread pool, one thread per core) and the API in one process,
// shelf photos submitted faster than they can be read (one every --every ms), and meanwhile, one
// after the other, a webhook test delivery (request to signed POST received) and a task status
// change (PATCH answered: a workflow update the tasks worker runs). Prints their p50/p95/p99/max and
// how many photos were read. Prints numbers; asserts nothing.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { NativeConnection } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import { createApp } from '../../src/http/app.js';
import { createServices } from '../../src/services.js';
import { taskQueues } from '../../src/temporal/contracts/task-queues.js';
import {
  PooledLocalRecognizer,
  RecognitionPool,
} from '../../src/modules/recognition/engines/local/recognition-pool.js';
import type { RecognizeInput, Recognizer } from '../../src/modules/recognition/recognizer.js';
import { createWorkers } from '../../workers/create-workers.js';
import { benchEnvironment, benchRuntime } from './setup.js';
import { quantile } from '../lib/quantile.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '60' }, every: { type: 'string', default: '150' } },
});
const { devServer } = await benchEnvironment(7257);
const { prefix, runtime } = await benchRuntime({ DATABASE_POOL_MAX: 40 });
const { app } = createApp(runtime);
const server = app.listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;

const dir = resolve(import.meta.dirname, '../../test/fixtures/synthetic-shelves');
const photos = readdirSync(dir)
  .filter((f) => f.endsWith('.jpg'))
  .map((f) => readFileSync(join(dir, f)));
let served = 0;
const imageHost = createServer((_req, res) =>
  res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photos[served++ % photos.length]),
);
await new Promise<void>((r) => imageHost.listen(0, '127.0.0.1', r));
const imageUrl = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}/shelf.jpg`;

const received: number[] = [];
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received.push(performance.now());
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));

const services = createServices(runtime.orm.em.fork(), { config: runtime.config, logger: runtime.logger });
const org = await services.organisations.create({ name: 'Bench', plan: 'scale', credits: 100_000 });
// Photos take turns over enough keys that none is refused: one key may submit 150 analyses a
// minute. One every 150 ms (~6.7 a second) is more than two threads read (~4.6 a second here, with
// the photos' organisation's empty catalogue); at 400 ms they kept up once that case was made cheap.
const every = Number(values.every);
const newKeys = (n: number, role: 'write' | 'admin') =>
  Promise.all(Array.from({ length: n }, async () => (await services.apiKeys.create(org.id, role, 'bench')).secret));
const photoKeys = await newKeys(every > 0 ? Math.ceil(60_000 / every / 140) + 1 : 1, 'write');
// Test deliveries take turns over several admin keys too: one key may send 300 a minute, and an
// idle worker answers faster than that.
const adminKeys = await newKeys(4, 'admin');
const adminKey = adminKeys[0]!;
// Task calls take turns over several keys: one key's writes are rate-limited (300 a minute).
const taskKeys = await newKeys(8, 'write');
const call = async (method: string, path: string, key: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data: { id: string } };
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json.data;
};
const hook = await call('POST', '/webhooks', adminKey, {
  url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
  events: ['task.completed'],
});

// The worker process: production worker set, the local recognizer's pool, as workers/run-worker.ts makes it.
const pool = new RecognitionPool(runtime.config.RECOGNITION_THREADS);
const pooled = new PooledLocalRecognizer(pool);
let reading = 0;
let read = 0;
const recognizer: Recognizer = {
  name: 'local',
  async recognize(input: RecognizeInput) {
    reading++;
    try {
      return await pooled.recognize(input);
    } finally {
      reading--;
      read++;
    }
  },
};
const connection = await NativeConnection.connect({ address: runtime.config.TEMPORAL_ADDRESS });
const workers = await createWorkers({
  connection,
  namespace: runtime.config.TEMPORAL_NAMESPACE,
  queues: taskQueues(prefix),
  activities: createActivities({
    orm: runtime.orm,
    config: runtime.config,
    client: runtime.temporal.client,
    recognizer: async () => recognizer,
  }),
  activitySlots: runtime.config.ANALYSIS_MAX_CONCURRENT_ACTIVITIES,
  recognitionSlots: runtime.config.RECOGNITION_THREADS,
});
const running = Promise.all(workers.map((w) => w.run()));

// Photos faster than they can be read, until the end.
let submitted = 0;
// --every 0: no photos at all, the same measurements on an idle worker, for comparison.
const submitter =
  every > 0
    ? setInterval(() => {
        submitted++;
        call('POST', '/analyses', photoKeys[submitted % photoKeys.length]!, { imageUrl }).catch((err: unknown) =>
          console.error(err),
        );
      }, every)
    : undefined;
while (every > 0 && reading < runtime.config.RECOGNITION_THREADS) await new Promise((r) => setTimeout(r, 50));

const deliveries: number[] = [];
const updates: number[] = [];
// How much of the run every thread was reading (sampled): the measurements below only mean "at full
// load" if this is close to 1.
let samples = 0;
let saturatedSamples = 0;
const sampler = setInterval(() => {
  samples++;
  if (reading >= runtime.config.RECOGNITION_THREADS) saturatedSamples++;
}, 50);
const end = performance.now() + Number(values.seconds) * 1000;
while (performance.now() < end) {
  const t = performance.now();
  const before = received.length;
  await call('POST', `/webhooks/${hook.id}/test`, adminKeys[deliveries.length % adminKeys.length]!);
  while (received.length === before) await new Promise((r) => setTimeout(r, 2));
  deliveries.push(received[before]! - t);
  const key = taskKeys[updates.length % taskKeys.length]!;
  const task = await call('POST', '/tasks', key, { title: 'Bench' });
  const u = performance.now();
  await call('PATCH', `/tasks/${task.id}`, key, { status: 'in_progress' });
  updates.push(performance.now() - u);
}
clearInterval(submitter);
clearInterval(sampler);

const stats = (xs: number[]) => {
  const at = (q: number) => Math.round(quantile(xs, q));
  return { n: xs.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: Math.round(Math.max(...xs)) };
};
console.table({ 'webhook delivery ms': stats(deliveries), 'task update ms': stats(updates) });
console.log(
  JSON.stringify({
    threads: runtime.config.RECOGNITION_THREADS,
    seconds: Number(values.seconds),
    photosSubmitted: submitted,
    photosRead: read,
    allThreadsBusy: Math.round((100 * saturatedSamples) / Math.max(1, samples)) / 100,
    deliveryMs: stats(deliveries),
    taskUpdateMs: stats(updates),
  }),
);

workers.forEach((w) => w.shutdown());
await running;
await connection.close();
await pool.close();
server.close();
imageHost.close();
receiver.close();
await runtime.close();
await devServer?.stop();
process.exit(0);
