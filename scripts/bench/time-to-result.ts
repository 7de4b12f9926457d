// `npm run bench:result`: the time a client waits for a result, as a client sends one. Real shelf
// photos (the 20 of ../shared/datasets/real-shelf-price-tags, 1920×1080 and 3840×2160, read from there
// and served by an HTTP host on loopback), an organisation with a 1,000-item catalogue and a webhook,
// the API and a worker each their own process as `npm start` runs them, with the local recognizer.
// One photo every BENCH_RESULT_INTERVAL_MS (10,000), BENCH_RESULT_N (20) of them. For each analysis:
// POST sent -> signed analysis.completed received, the recognition time the worker measured
// (analysis_runs.duration_ms), and the rest, orchestration, split into steps from its workflow history:
//   start      POST sent -> workflow started (the 202, the commit, the start behind it)
//   fetch      workflow started -> recognition scheduled (first workflow task, image fetched and stored)
//   recognize  recognition scheduled -> completed, minus the recognition itself (queue, image load, hand-off)
//   finalize   recognition completed -> the analysis completed (analyses.completed_at: merge, products, event)
//   delivery   the analysis completed -> webhook received (its commit, the fan-out, the delivery's POST)
// (The workflow goes on after the webhook is out: the console's preview is made then, off this path.)
// Prints p50 and p99 of each; asserts nothing. bench:api's overhead row is this measurement.
// BENCH_RESULT_TRACE=on prints each analysis' history, event by event, in ms after its POST.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@temporalio/client';
import type pg from 'pg';
import type { Services } from '../../src/services.js';
import { serviceProcess, servicesAnswer, until } from './service-processes.js';
import { toolSettings } from '../lib/tool-settings.js';
import { quantile } from '../lib/quantile.js';

const root = resolve(import.meta.dirname, '../..');
const DEFAULT_PHOTOS = resolve(root, '../shared/datasets/real-shelf-price-tags/images');

export type TimeToResultOptions = {
  services: Services;
  organisationId: string;
  writeKey: string;
  /** The database the API and worker use (their processes are started on it). */
  databaseUrl: string;
  /** A client on the Temporal server they use, to read the analyses' histories. */
  client: Client;
  db: pg.Client;
  /** Task queue prefix of the run: the processes here poll queues of their own under it. */
  prefix: string;
  count?: number;
  intervalMs?: number;
  photos?: string;
  say: (msg: string) => void;
};

export type Step = 'start' | 'fetch' | 'recognize' | 'finalize' | 'delivery';
export type TimeToResult = {
  analyses: number;
  intervalMs: number;
  total: { p50: number; p99: number };
  recognition: { p50: number; p99: number };
  orchestration: { p50: number; p99: number };
  steps: Record<Step, { p50: number; p99: number }>;
};

const quantiles = (values: number[]) => ({
  p50: Math.round(quantile(values, 0.5)),
  p99: Math.round(quantile(values, 0.99)),
});

export async function timeToResult(o: TimeToResultOptions): Promise<TimeToResult> {
  const count = o.count ?? 20;
  const intervalMs = o.intervalMs ?? 10_000;
  const photosDir = o.photos ?? DEFAULT_PHOTOS;
  if (!existsSync(photosDir))
    throw new Error(`bench: no photos at ${photosDir} (set BENCH_PHOTOS to a folder of shelf photos)`);
  const photos = readdirSync(photosDir)
    .filter((f) => /\.jpe?g$/i.test(f))
    .sort()
    .map((f) => readFileSync(join(photosDir, f)));
  if (photos.length === 0) throw new Error(`bench: no .jpg photos in ${photosDir}`);

  // A catalogue of 1,000 items, as an organisation that stocks a store has.
  await o.services.inventory.bulkUpsert(
    o.organisationId,
    Array.from({ length: 1000 }, (_, i) => ({
      sku: `BENCH-${String(i).padStart(4, '0')}`,
      brand: ['Heinz', 'Kellogg', 'Nestle', 'Unilever', 'Danone'][i % 5]!,
      name: `Product ${i} ${['Beans', 'Cereal', 'Coffee', 'Soap', 'Yogurt'][i % 5]} ${100 + (i % 9) * 50}g`,
      expectedPrice: Number((0.5 + (i % 40) * 0.25).toFixed(2)),
      currency: 'GBP',
    })) as never,
  );

  const received = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string; data: { id: string } };
      if (body.event === 'analysis.completed' && req.headers['x-service-signature'])
        received.set(body.data.id, performance.now());
      res.writeHead(200).end('ok');
    });
  });
  const imageHost = createServer((req, res) => {
    const photo = photos[Number(/\/(\d+)\.jpg$/.exec(req.url ?? '')?.[1] ?? -1)];
    if (!photo) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': photo.length }).end(photo);
  });
  await Promise.all([receiver, imageHost].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  const port = (s: typeof receiver) => (s.address() as AddressInfo).port;
  await o.services.webhooks.create(o.organisationId, {
    url: `http://127.0.0.1:${port(receiver)}/completed`,
    events: ['analysis.completed'],
  });

  // Queues of its own: workflows other measurements started (and nobody ran) must not stand in front.
  const prefix = `${o.prefix}r-`;
  const apiPort = 40000 + Math.floor(Math.random() * 1000);
  const env = { DATABASE_URL: o.databaseUrl, TASK_QUEUE_PREFIX: prefix };
  const children = [
    serviceProcess('src/bin/api.ts', { ...env, PORT: String(apiPort), HOST: '127.0.0.1' }),
    serviceProcess('workers/main.ts', { ...env, RECOGNIZER: 'local', WORKER_HEALTH_PORT: String(apiPort + 1) }),
  ];
  const stop = () => children.forEach((c) => c.kill('SIGTERM'));
  process.once('exit', stop);
  try {
    await servicesAnswer(apiPort);

    const submit = async (i: number) => {
      const t = performance.now();
      const res = await fetch(`http://127.0.0.1:${apiPort}/api/v1/analyses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${o.writeKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ imageUrl: `http://127.0.0.1:${port(imageHost)}/${i % photos.length}.jpg` }),
      });
      if (res.status !== 202) throw new Error(`submission answered ${res.status}: ${await res.text()}`);
      return { id: ((await res.json()) as { data: { id: string } }).data.id, sentAt: t };
    };
    // What ran before in the same run (bench:api's thousands of submissions, the database's autovacuum
    // after them, the Temporal server's own) must be over: the row measures one photo every 10 s.
    const waited = await quietHost();
    o.say(
      `time to result: the host quiet after ${(waited.ms / 1000).toFixed(1)} s (${Math.round(100 * waited.idle)} % idle)`,
    );
    // Two first, not measured: the worker's first photos load what it keeps (catalogue index, models).
    for (const i of [0, 1]) {
      const { id } = await submit(i);
      await until('the warm-up analyses', () => received.has(id), 120_000);
    }
    o.say(`time to result: ${count} real photos, one every ${intervalMs / 1000} s`);
    const sent: { id: string; sentAt: number }[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      sent.push(await submit(i));
      await new Promise((r) => setTimeout(r, Math.max(0, intervalMs - (performance.now() - started))));
    }
    await until('analysis.completed webhooks', () => sent.every((s) => received.has(s.id)), 300_000);

    const { rows } = await o.db.query<{ analysis_id: string; ms: number; completed_at: Date }>(
      `select r.analysis_id, sum(r.duration_ms)::int as ms, a.completed_at
         from analysis_runs r join analyses a on a.id = r.analysis_id
        where r.analysis_id = any($1) group by r.analysis_id, a.completed_at`,
      [sent.map((s) => s.id)],
    );
    const recognitionMs = new Map(rows.map((r) => [r.analysis_id, r.ms]));
    // The worker's clock when finalize marked it completed, on this process's clock (same machine).
    const completedAt = new Map(rows.map((r) => [r.analysis_id, r.completed_at.getTime() - performance.timeOrigin]));
    const per: Record<Step | 'total' | 'recognition' | 'orchestration', number[]> = {
      total: [],
      recognition: [],
      orchestration: [],
      start: [],
      fetch: [],
      recognize: [],
      finalize: [],
      delivery: [],
    };
    for (const { id, sentAt } of sent) {
      const history = await o.client.workflow.getHandle(id).fetchHistory();
      // Event times on this process's clock (the server runs on the same machine).
      const at = (e: { eventTime?: { seconds?: unknown; nanos?: number | null } | null }) =>
        Number(e.eventTime!.seconds) * 1000 + Math.round((e.eventTime!.nanos ?? 0) / 1e6) - performance.timeOrigin;
      const events = history.events ?? [];
      // Where a step's time went, event by event (the workflow tasks and local activities around the fetch).
      if (toolSettings().BENCH_RESULT_TRACE === 'on') {
        const kind = (e: object) =>
          Object.entries(e)
            .find(([k, v]) => k.endsWith('EventAttributes') && v)?.[0]
            .replace('EventAttributes', '');
        const ms = (t: number) => Math.round(t - sentAt);
        o.say(
          `${id}: recognition ${recognitionMs.get(id)} ms, completed @${ms(completedAt.get(id)!)}, webhook @${ms(received.get(id)!)}; ` +
            events.map((e) => `${kind(e)}@${ms(at(e))}`).join(' '),
        );
      }
      const started = events.find((e) => e.workflowExecutionStartedEventAttributes)!;
      const scheduled = events.find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'recognizeImage',
      )!;
      const done = events.find(
        (e) => e.activityTaskCompletedEventAttributes && Number(e.eventId) > Number(scheduled.eventId),
      )!;
      const recognition = recognitionMs.get(id) ?? 0;
      const total = received.get(id)! - sentAt;
      per.total.push(total);
      per.recognition.push(recognition);
      per.orchestration.push(total - recognition);
      per.start.push(at(started) - sentAt);
      per.fetch.push(at(scheduled) - at(started));
      per.recognize.push(at(done) - at(scheduled) - recognition);
      per.finalize.push(completedAt.get(id)! - at(done));
      per.delivery.push(received.get(id)! - completedAt.get(id)!);
    }
    return {
      analyses: sent.length,
      intervalMs,
      total: quantiles(per.total),
      recognition: quantiles(per.recognition),
      orchestration: quantiles(per.orchestration),
      steps: {
        start: quantiles(per.start),
        fetch: quantiles(per.fetch),
        recognize: quantiles(per.recognize),
        finalize: quantiles(per.finalize),
        delivery: quantiles(per.delivery),
      },
    };
  } finally {
    stop();
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
    receiver.close();
    imageHost.close();
  }
}

/** How many photos, how far apart, and from where: BENCH_RESULT_N, BENCH_RESULT_INTERVAL_MS, BENCH_PHOTOS. */
export function timeToResultSettings(): Pick<TimeToResultOptions, 'count' | 'intervalMs' | 'photos'> {
  return {
    count: toolSettings().BENCH_RESULT_N,
    intervalMs: toolSettings().BENCH_RESULT_INTERVAL_MS,
    photos: toolSettings().BENCH_PHOTOS,
  };
}

/** The table's rows for a result: orchestration beside recognition, then each step. */
export function timeToResultRows(r: TimeToResult): string[][] {
  const q = (v: { p50: number; p99: number }) => `p50 ${v.p50} ms, p99 ${v.p99} ms`;
  return [
    [
      `POST /analyses -> signed analysis.completed, real photos, minus recognition (${r.analyses}, one every ${r.intervalMs / 1000} s)`,
      q(r.orchestration),
      `recognition itself: ${q(r.recognition)}; end to end ${q(r.total)}`,
      '',
    ],
    ...(Object.entries(r.steps) as [Step, { p50: number; p99: number }][]).map(([step, v]) => [
      `  of which ${step}`,
      q(v),
      '',
      '',
    ]),
  ];
}

// Run on its own: `npm run bench:result` (DATABASE_URL; TEMPORAL_ADDRESS or a dev server of its own).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { default: pgModule } = await import('pg');
  const { benchEnvironment, benchOrganisation, benchRuntime } = await import('./setup.js');
  const { createServices } = await import('../../src/services.js');
  const { databaseUrl, devServer } = await benchEnvironment(7259);
  const { prefix, runtime } = await benchRuntime();
  const services = createServices(runtime.orm.em.fork(), { config: runtime.config, logger: runtime.logger });
  const { org, writeKey } = await benchOrganisation(services);
  const db = new pgModule.Client({ connectionString: databaseUrl });
  await db.connect();
  const result = await timeToResult({
    services,
    organisationId: org.id,
    writeKey,
    databaseUrl,
    client: runtime.temporal.client,
    db,
    prefix,
    ...timeToResultSettings(),
    say: (msg) => console.error(`[bench] ${msg}`),
  });
  console.log('\n| measure | the service | beside it | |\n|---|---|---|---|');
  for (const row of timeToResultRows(result)) console.log(`| ${row.join(' | ')} |`);
  console.log(JSON.stringify(result));
  await db.end();
  await runtime.close();
  await devServer?.stop();
  process.exit(0);
}

/** The machine's idle share since `from` (all cores), from the kernel's counters. */
function idleSince(from: ReturnType<typeof cpus>): number {
  let idle = 0;
  let total = 0;
  cpus().forEach((c, i) => {
    const before = from[i]!.times;
    idle += c.times.idle - before.idle;
    total += Object.values(c.times).reduce((a, b) => a + b, 0) - Object.values(before).reduce((a, b) => a + b, 0);
  });
  return total > 0 ? idle / total : 1;
}

/** Waits (at most two minutes) until the machine is at least 80 % idle over two seconds. */
async function quietHost(): Promise<{ ms: number; idle: number }> {
  const t0 = performance.now();
  for (;;) {
    const from = cpus();
    await new Promise((r) => setTimeout(r, 2_000));
    const idle = idleSince(from);
    if (idle >= 0.8 || performance.now() - t0 > 120_000) return { ms: performance.now() - t0, idle };
  }
}
