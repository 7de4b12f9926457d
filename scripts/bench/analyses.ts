// Benchmark: how fast the API accepts analyses and how long a batch of 200 takes end to end with a
// recognizer that answers instantly, next to the raw rate at which the same Temporal server starts
// empty workflows. Prints numbers; asserts nothing. Usage: npm run bench:analyses
// Needs DATABASE_URL (a server; a `shelf_bench` database is recreated) and TEMPORAL_ADDRESS, or
// starts a dev server itself.
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import pg from 'pg';
import sharp from 'sharp';
import { NativeConnection } from '@temporalio/worker';
import { createWorkers } from '../../workers/create-workers.js';
import { createActivities } from '../../activities/index.js';
import { createApp } from '../../src/http/app.js';
import { createServices } from '../../src/services.js';
import { taskQueues } from '../../src/temporal/contracts/task-queues.js';
import { benchEnvironment, benchRuntime, instant } from './setup.js';
import { toolSettings } from '../lib/tool-settings.js';

const N = toolSettings().BENCH_N;
const CONCURRENCY = toolSettings().BENCH_CONCURRENCY;

async function pool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const { databaseUrl, devServer } = await benchEnvironment(7255);
const dbUrl = new URL(databaseUrl);

const { prefix, runtime } = await benchRuntime({ ANALYSIS_RUNS: 1, DATABASE_POOL_MAX: 40 });
const { app } = createApp(runtime);
const server = app.listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;

const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#c8b428' } })
  .jpeg()
  .toBuffer();
const imageHost = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(png));
await new Promise<void>((r) => imageHost.listen(0, '127.0.0.1', r));
const imageUrl = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}/shelf.jpg`;

const services = createServices(runtime.orm.em.fork(), { config: runtime.config, logger: runtime.logger });
const org = await services.organisations.create({ name: 'Bench', plan: 'scale', credits: 10 * N + 10 });
const { secret } = await services.apiKeys.create(org.id, 'write', 'bench');
const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };

const queues = taskQueues(prefix);
const connection = await NativeConnection.connect({ address: runtime.config.TEMPORAL_ADDRESS });
const activities = createActivities({
  orm: runtime.orm,
  config: runtime.config,
  client: runtime.temporal.client,
  recognizer: async () => instant,
});
const workers = await createWorkers({
  connection,
  namespace: runtime.config.TEMPORAL_NAMESPACE,
  queues,
  activities,
  activitySlots: 20,
  recognitionSlots: 8,
});

async function waitAllFinal(ids: string[]) {
  const client = new pg.Client({ connectionString: dbUrl.toString() });
  await client.connect();
  for (;;) {
    const { rows } = await client.query(
      `select count(*)::int as n from analyses where id = any($1) and status <> 'processing'`,
      [ids],
    );
    if (rows[0].n === ids.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await client.end();
}

// 1. Single submissions, CONCURRENCY at a time.
const singleIds: string[] = [];
const latencies: number[] = [];
let t0 = performance.now();
await pool(
  Array.from({ length: N }, (_, i) => i),
  CONCURRENCY,
  async (i) => {
    const started = performance.now();
    const res = await fetch(`${base}/analyses`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ imageUrl, externalId: `single-${i}` }),
    });
    latencies.push(performance.now() - started);
    if (res.status !== 202) throw new Error(`submission answered ${res.status}: ${await res.text()}`);
    singleIds.push(((await res.json()) as { data: { id: string } }).data.id);
  },
);
const acceptSeconds = (performance.now() - t0) / 1000;
// Workers start only now, so the acceptance rate above is the API's alone; the drain below is the workers'.
t0 = performance.now();
const running = Promise.all(workers.map((w) => w.run()));
await waitAllFinal(singleIds);
const singleDoneSeconds = (performance.now() - t0) / 1000;
latencies.sort((a, b) => a - b);

// 2. One batch of N, from POST to the last analysis final.
t0 = performance.now();
const batchRes = await fetch(`${base}/analyses/batch`, {
  method: 'POST',
  headers,
  body: JSON.stringify({ images: Array.from({ length: N }, (_, i) => ({ imageUrl, externalId: `b-${i}` })) }),
});
if (batchRes.status !== 202) throw new Error(`batch answered ${batchRes.status}: ${await batchRes.text()}`);
const batchAccepted = (performance.now() - t0) / 1000;
const batchIds = ((await batchRes.json()) as { data: { analyses: { id: string }[] } }).data.analyses.map((a) => a.id);
await waitAllFinal(batchIds);
const batchSeconds = (performance.now() - t0) / 1000;

// 3. The same Temporal server starting N empty workflows (nobody polls their queue), same concurrency.
const client = runtime.temporal.client;
const emptyIds = Array.from({ length: N }, (_, i) => `${prefix}empty-${i}`);
t0 = performance.now();
await pool(emptyIds, CONCURRENCY, async (id) => {
  await client.workflow.start('emptyWorkflow', { workflowId: id, taskQueue: `${prefix}nobody` });
});
const emptySeconds = (performance.now() - t0) / 1000;
await pool(
  emptyIds,
  CONCURRENCY,
  async (id) => void (await client.workflow.getHandle(id).terminate('benchmark cleanup')),
);

const pct = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(1);
console.log(
  JSON.stringify(
    {
      images: N,
      concurrency: CONCURRENCY,
      singleSubmissions: {
        acceptedPerSecond: Math.round(N / acceptSeconds),
        latencyMsP50: Number(pct(50)),
        latencyMsP99: Number(pct(99)),
        workersDrainSeconds: Number(singleDoneSeconds.toFixed(2)),
      },
      batch: {
        acceptedInSeconds: Number(batchAccepted.toFixed(3)),
        secondsUntilAllFinal: Number(batchSeconds.toFixed(2)),
        analysesPerSecond: Math.round(N / batchSeconds),
      },
      temporalEmptyWorkflowStartsPerSecond: Math.round(N / emptySeconds),
    },
    null,
    2,
  ),
);

workers.forEach((w) => w.shutdown());
await running;
await connection.close();
server.close();
imageHost.close();
await runtime.close();
await devServer?.stop();
process.exit(0);
