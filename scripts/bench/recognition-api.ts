// `DATABASE_URL=… [BENCH_ROUNDS=3] npm run bench:recognition-api -- [--images DIR] [--photos 48]`
// Photos per second through the whole service, all cores, against the recognizer's own all-core rate
// for the same photos, side by side in one run:
//   ours     POST /analyses (a real API process) -> image fetched from a loopback host -> the `local`
//            recognizer in a real worker process (one recognition thread per core) -> finalize ->
//            a signed analysis.completed webhook received and verified on loopback;
//   ceiling  `bench:recognition`'s all-core measurement (a pool of one thread per core kept full) over
//            the same photos, in a child process.
// The rate is photos ÷ (last webhook − first POST), every photo submitted at once (the worker's queue
// keeps every thread busy). The organisation's inventory is the set's catalogue.json, so recognition
// does the same work as the ceiling's. Needs DATABASE_URL (a server; `shelf_bench` is recreated there)
// and TEMPORAL_ADDRESS, or starts a Temporal dev server itself. Prints a table; asserts nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { verifyWebhookSignature } from '../../clients/typescript/src/webhooks.js';
import { createServices } from '../../src/services.js';
import { processTable } from '../../test/helpers/child-processes.js';
import { benchEnvironment, benchOrganisation, benchRuntime } from './setup.js';
import { toolSettings } from '../lib/tool-settings.js';
import { WORKER_NODE_FLAGS } from '../../workers/node-flags.js';

const { values } = parseArgs({
  options: {
    images: { type: 'string', default: 'test/fixtures/synthetic-shelves' },
    photos: { type: 'string', default: '48' },
  },
});
const root = resolve(import.meta.dirname, '../..');
const dir = resolve(values.images!);
const count = Number(values.photos);
const cores = availableParallelism();
const say = (msg: string) => console.error(`[bench] ${msg}`);

/** CPU seconds so far of each party: the API process, the worker process with its OCR helpers, PostgreSQL, Temporal. */
function cpuByParty(api: number, worker: number): Record<string, number> {
  const table = processTable();
  const within = (pid: number, root: number): boolean => {
    for (let p = pid, i = 0; p > 1 && i < 50; p = table.get(p)?.ppid ?? 0, i++) if (p === root) return true;
    return false;
  };
  const sum = { api: 0, worker: 0, postgres: 0, temporal: 0, bench: 0 };
  for (const [pid, t] of table) {
    if (within(pid, api)) sum.api += t.cpuSeconds;
    else if (within(pid, worker)) sum.worker += t.cpuSeconds;
    else if (t.comm === 'postgres') sum.postgres += t.cpuSeconds;
    else if (t.comm === 'temporal') sum.temporal += t.cpuSeconds;
    else if (pid === process.pid) sum.bench += t.cpuSeconds;
  }
  return sum;
}

const { databaseUrl, devServer } = await benchEnvironment(7262);
const { prefix, runtime } = await benchRuntime();
const services = createServices(runtime.orm.em.fork(), { config: runtime.config, logger: runtime.logger });
const { org, writeKey } = await benchOrganisation(services, 'Bench recognition');
type Item = {
  sku: string;
  upc: string | null;
  brand: string;
  name: string;
  category: string | null;
  sizeValue: number | null;
  sizeUnit: string | null;
  expectedPrice: number | null;
  currency: string | null;
};
const catalogue = JSON.parse(readFileSync(join(dir, 'catalogue.json'), 'utf8')) as Item[];
await services.inventory.bulkUpsert(
  org.id,
  catalogue.map((c) => ({
    sku: c.sku,
    upc: c.upc,
    brand: c.brand,
    name: c.name,
    category: c.category ?? null,
    sizeValue: c.sizeValue,
    sizeUnit: c.sizeUnit,
    expectedPrice: c.expectedPrice,
    currency: c.currency,
  })),
);

// The photos, from a loopback host as a client's would be.
const photos = readdirSync(dir)
  .filter((f) => f.endsWith('.jpg'))
  .sort()
  .map((f) => readFileSync(join(dir, f)));
const imageHost = createServer((req, res) => {
  const i = Number(/\/(\d+)\.jpg$/.exec(req.url ?? '')?.[1]);
  const body = photos[i];
  if (body === undefined) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length }).end(body);
});
await new Promise<void>((r) => imageHost.listen(0, '127.0.0.1', r));
const imageBase = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}`;

// The webhook receiver: a delivery counts once its signature verifies over the raw body.
const completed = new Map<string, number>();
let rejected = 0;
// The endpoint's secret, known once the endpoint is created (after the receiver listens).
let secret = '';
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    try {
      verifyWebhookSignature(raw, (req.headers['x-service-signature'] as string | undefined) ?? '', secret);
      const body = JSON.parse(raw.toString('utf8')) as { event: string; data: { id: string } };
      if (body.event === 'analysis.completed' && !completed.has(body.data.id))
        completed.set(body.data.id, performance.now());
    } catch {
      rejected++;
    }
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
secret = (
  await services.webhooks.create(org.id, {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/completed`,
    events: ['analysis.completed'],
  })
).secret;

const env = {
  ...process.env,
  DATABASE_URL: databaseUrl,
  TASK_QUEUE_PREFIX: prefix,
  ALLOW_PRIVATE_NETWORK_FETCH: 'true',
  LOG_LEVEL: 'silent',
  METRICS_PORT: '0',
  TEMPORAL_METRICS_PORT: '0',
  WORKER_HEALTH_PORT: '0',
  RECOGNIZER: 'local',
};
const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGTERM')));
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));
const apiPort = 39000 + Math.floor(Math.random() * 1000);
children.push(
  spawn(process.execPath, ['--import', 'tsx', 'src/bin/api.ts'], {
    cwd: root,
    env: { ...env, PORT: String(apiPort), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  }),
  // BENCH_PROFILE=dir: the worker process writes V8 CPU profiles there (one per thread) when it stops.
  spawn(
    process.execPath,
    [
      ...(toolSettings().BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${toolSettings().BENCH_PROFILE}`] : []),
      ...WORKER_NODE_FLAGS,
      '--import',
      'tsx',
      'workers/main.ts',
    ],
    { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] },
  ),
);
for (let i = 0; ; i++) {
  const up = await fetch(`http://127.0.0.1:${apiPort}/health/live`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) break;
  if (i > 300) throw new Error('the API never answered');
  await new Promise((r) => setTimeout(r, 100));
}

async function submit(i: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${apiPort}/api/v1/analyses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${writeKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ imageUrl: `${imageBase}/${i % photos.length}.jpg` }),
  });
  if (res.status !== 202) throw new Error(`submission answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: { id: string } }).data.id;
}
async function until(ids: string[], label: string) {
  const deadline = Date.now() + 30_000 + ids.length * 10_000;
  while (!ids.every((id) => completed.has(id))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}: ${completed.size} webhooks`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Warm-up, untimed: each recognition thread starts its OCR on its first photo.
say(`warming up: ${cores * 2} photos`);
await until(await Promise.all(Array.from({ length: cores * 2 }, (_, i) => submit(i))), 'the warm-up');

// Rounds alternate the service and the ceiling (BENCH_ROUNDS, 3), so a load that comes and goes on
// the host falls on both; the median ratio is the figure. The service's processes stay up, idle,
// while the ceiling runs (their CPU meanwhile is printed, to show it is small).
async function throughTheService(round: number) {
  say(`round ${round}: through the API, ${count} photos of ${dir}, all submitted at once`);
  const cpuBefore = cpuByParty(children[0]!.pid!, children[1]!.pid!);
  const started = performance.now();
  const ids = await Promise.all(Array.from({ length: count }, (_, i) => submit(i)));
  await until(ids, 'the measured photos');
  const cpuAfter = cpuByParty(children[0]!.pid!, children[1]!.pid!);
  // Where the two cores went, per photo: recognition is the worker's share, the rest is the service around it.
  const cpuPerPhoto = Object.fromEntries(
    Object.keys(cpuAfter).map((k) => [k, Math.round((1000 * (cpuAfter[k]! - cpuBefore[k]!)) / count)]),
  );
  const seconds = (Math.max(...ids.map((id) => completed.get(id)!)) - started) / 1000;
  return { rate: count / seconds, seconds, cpuPerPhoto };
}

async function poolAlone(round: number) {
  say(`round ${round}: the recognizer alone, bench:recognition's all-core run on the same ${count} photos`);
  const idleBefore = cpuByParty(children[0]!.pid!, children[1]!.pid!);
  const ceiling = await new Promise<{ photos: number; seconds: number; cpuMsPerPhoto: number }>((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/bench/recognition.ts',
        '--child',
        '--threads',
        String(cores),
        '--photos',
        String(count),
        '--images',
        dir,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) =>
      code === 0 ? done(JSON.parse(out.trim().split('\n').at(-1)!)) : fail(new Error(`exit ${code}: ${out}`)),
    );
  });
  const idleAfter = cpuByParty(children[0]!.pid!, children[1]!.pid!);
  const idleServiceSeconds = (['api', 'worker'] as const).reduce((t, k) => t + idleAfter[k]! - idleBefore[k]!, 0);
  return {
    rate: ceiling.photos / ceiling.seconds,
    seconds: ceiling.seconds,
    cpuMsPerPhoto: ceiling.cpuMsPerPhoto,
    idleServiceSeconds,
  };
}

const rounds = toolSettings().BENCH_ROUNDS ?? 3;
const results: { ours: Awaited<ReturnType<typeof throughTheService>>; bare: Awaited<ReturnType<typeof poolAlone>> }[] =
  [];
for (let r = 1; r <= rounds; r++) results.push({ ours: await throughTheService(r), bare: await poolAlone(r) });
await Promise.all(children.map((c) => new Promise((r) => (c.kill('SIGTERM'), c.once('exit', r)))));

const fmt = (n: number, d = 2) => n.toFixed(d);
const ratioOf = (x: (typeof results)[number]) => x.ours.rate / x.bare.rate;
const median = [...results].sort((x, y) => ratioOf(x) - ratioOf(y))[Math.floor(results.length / 2)]!;
console.log('\n| round | the service | the ceiling, same run | ratio |\n|---|---|---|---|');
results.forEach((x, i) =>
  console.log(
    `| ${i + 1}${x === median ? ' (median)' : ''} | POST /analyses -> signed analysis.completed: ${fmt(x.ours.rate)} /s (${fmt(x.ours.seconds, 1)} s) | recognition pool alone: ${fmt(x.bare.rate)} /s (${fmt(x.bare.seconds, 1)} s; the idle service meanwhile ${fmt(x.bare.idleServiceSeconds, 1)} CPU s) | ${fmt(100 * ratioOf(x), 1)} % |`,
  ),
);
console.log(
  `photos/s, ${count} photos of ${dir.slice(root.length + 1) || dir}, ${cores} cores, median of ${rounds} rounds: the service ${fmt(median.ours.rate)} /s, the pool alone ${fmt(median.bare.rate)} /s, ratio ${fmt(100 * ratioOf(median), 1)} %`,
);
// The cores are busy throughout both (D370), so the rates' ratio is about the ratio of CPU a photo costs.
const serviceCpu = Object.values(median.ours.cpuPerPhoto).reduce((a, b) => a + b, 0);
console.log(
  `CPU ms per photo (median round): through the service ${serviceCpu}, by process ${JSON.stringify(median.ours.cpuPerPhoto)}; the pool alone ${median.bare.cpuMsPerPhoto}; pool ÷ service ${fmt((100 * median.bare.cpuMsPerPhoto) / serviceCpu, 1)} %`,
);
if (rejected > 0) say(`${rejected} deliveries failed verification`);
imageHost.close();
receiver.close();
await runtime.close();
await devServer?.stop();
process.exit(0);
