// `npm run bench:fair`: what one organisation's backlog costs another (issue 40). The API and a worker
// each their own process as `npm start` runs them, on a dev server started as scripts/temporal.ts
// starts it (fairness on), the `openai` recognizer reading from a vision-model stand-in on loopback
// that answers after BENCH_FAIR_RECOGNITION_MS (1,500, about what the local recognizer takes for a
// photo here): recognition is the slow stage, as in production, without the two cores going to OCR.
//   idle      organisation B's single photo, POST -> its signed analysis.completed webhook, with
//             nothing else queued (the median of BENCH_FAIR_IDLE_N, 5); and the API's p99 for reads
//             (GET /analyses/:id) and submissions (POST /analyses, a third organisation) at a steady
//             rate for BENCH_FAIR_PROBE_S (10) seconds.
//   backlog   organisation A sends BENCH_FAIR_BACKLOG (1,000) photos as a client with a backlog does:
//             POST /analyses/batch, BENCH_FAIR_BATCH (200) images a request, BENCH_FAIR_SENDERS (4)
//             requests at a time (BENCH_FAIR_BATCH=1: single POST /analyses instead). B sends one
//             photo while they are being started (once BENCH_FAIR_QUEUED, a quarter, wait for
//             recognition, or 10 s after), and one once half of A's are done; the probes run with each.
//   memory    the API's and the worker's resident memory (/proc VmRSS) every 250 ms from A's first
//             submission to its last webhook, each sample filed under how many of A's photos had
//             completed: the mean over the first thousand completed against the last thousand (a
//             backlog under 2,000: its first and last half).
// Prints B's time against idle (target 2x), each p99 against idle (target 2x), how many of A's photos
// finished before B's, each process' memory last against first (target 1.10x), and B's steps from its
// workflow history. BENCH_FAIR_FAIRNESS=off starts the dev server without the dynamic config (arrival
// order, Temporal's defaults): the figures as they were. BENCH_FAIR_BATCH=1000 sends A's backlog as
// the runs before 2026-11-26 15:00 did (the docs' first table).
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import protos from '@temporalio/proto';
import { API_KEY, answer } from '../../test/helpers/openai-chat-api.js';
import { pngOfWidth } from '../../test/helpers/image-host.js';
import { createServices } from '../../src/services.js';
import { SHELF_PRODUCTS } from '../soak/stand-ins.js';
import { rssMb, serviceProcess, servicesAnswer, until } from './service-processes.js';
import { benchEnvironment, benchOrganisation, benchRuntime } from './setup.js';
import { toolSettings } from '../lib/tool-settings.js';
import { quantile } from '../lib/quantile.js';

const say = (msg: string) => console.error(`[bench] ${msg}`);
const tool = toolSettings();
const settings = {
  backlog: tool.BENCH_FAIR_BACKLOG,
  recognitionMs: tool.BENCH_FAIR_RECOGNITION_MS,
  idleN: tool.BENCH_FAIR_IDLE_N,
  probeS: tool.BENCH_FAIR_PROBE_S,
  fairness: tool.BENCH_FAIR_FAIRNESS !== 'off',
  batch: tool.BENCH_FAIR_BATCH,
  senders: tool.BENCH_FAIR_SENDERS,
};
/** Memory is compared over this many of A's photos completed, first against last. */
const memoryWindow = Math.min(1000, Math.floor(settings.backlog / 2));
/** How many of A's photos wait for recognition when B sends its first: BENCH_FAIR_QUEUED (a quarter of them). */
const queuedAt = tool.BENCH_FAIR_QUEUED ?? settings.backlog / 4;
/** Probe rates: reads as a dashboard polls, submissions as a store sends photos. */
const READS_PER_S = 20;
const SUBMISSIONS_PER_S = 4;
/** B's first photo goes in at most this long after A's batches were accepted. */
const STARTING_S = 10;

const ms = (v: number) => `${Math.round(v)} ms`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

const { devServer } = await benchEnvironment(7264, settings.fairness ? undefined : {});
const { prefix, runtime } = await benchRuntime();
const services = createServices(runtime.orm.em.fork(), { config: runtime.config, logger: runtime.logger });
const [a, b, c] = [
  await benchOrganisation(services, 'Backlog A'),
  await benchOrganisation(services, 'Single B'),
  await benchOrganisation(services, 'Probe C'),
];
const bRead = (await services.apiKeys.create(b.org.id, 'read', 'bench read')).secret;

// The outside world on loopback: a photo host, the vision model (slow on purpose), a webhook receiver.
const photo = await pngOfWidth(200, 120);
const imageHost = createServer((_req, res) =>
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': photo.length }).end(photo),
);
const completion = JSON.stringify(answer({ products: SHELF_PRODUCTS }));
const model = createServer((req, res) => {
  req.resume();
  req.on('end', () =>
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end(completion),
      settings.recognitionMs,
    ),
  );
});
const received = new Map<string, number>();
// A's photos, and how many of them have completed (counted as their webhooks come: 10,000 ids are too
// many to go through at every poll).
const aIds: string[] = [];
const aSet = new Set<string>();
let aDone = 0;
const addA = (id: string) => {
  aIds.push(id);
  aSet.add(id);
  if (received.has(id)) aDone++;
};
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (d: Buffer) => chunks.push(d));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string; data: { id: string } };
    if (body.event === 'analysis.completed' && !received.has(body.data.id)) {
      received.set(body.data.id, performance.now());
      if (aSet.has(body.data.id)) aDone++;
    }
    res.writeHead(200).end('ok');
  });
});
await Promise.all([imageHost, model, receiver].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
const portOf = (s: typeof model) => (s.address() as AddressInfo).port;
for (const o of [a, b])
  await services.webhooks.create(o.org.id, {
    url: `http://127.0.0.1:${portOf(receiver)}/hook`,
    events: ['analysis.completed'],
  });

const apiPort = 41000 + Math.floor(Math.random() * 1000);
const env = {
  TASK_QUEUE_PREFIX: prefix,
  RECOGNIZER: 'openai',
  OPENAI_BASE_URL: `http://127.0.0.1:${portOf(model)}/v1`,
  OPENAI_API_KEY: API_KEY,
  OPENAI_MODEL: 'bench-vision',
};
const children: ChildProcess[] = [
  serviceProcess('src/bin/api.ts', { ...env, PORT: String(apiPort), HOST: '127.0.0.1' }),
  // The SDK's metrics port of its own: its default is fixed, and another worker on the host may hold it.
  serviceProcess('workers/main.ts', {
    ...env,
    WORKER_HEALTH_PORT: String(apiPort + 1),
    TEMPORAL_METRICS_PORT: String(apiPort + 2),
  }),
];
const [apiProcess, workerProcess] = children as [ChildProcess, ChildProcess];
const stopChildren = () => children.forEach((ch) => ch.kill('SIGTERM'));
process.once('exit', stopChildren);

const base = `http://127.0.0.1:${apiPort}`;
const imageUrl = (i: number) => `http://127.0.0.1:${portOf(imageHost)}/shelf.png?n=${i}`;
let photoNo = 0;
async function call(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}
async function submitOne(key: string): Promise<string> {
  const res = await call('POST', '/analyses', key, { imageUrl: imageUrl(photoNo++) });
  if (res.status !== 202) throw new Error(`submission answered ${res.status}: ${JSON.stringify(res.json)}`);
  return res.json.data.id as string;
}
/** B's photo: POST sent -> its webhook received; `answered`: when the POST's 202 came. */
async function timeToWebhook(): Promise<{ id: string; ms: number; sentAt: number; answered: number }> {
  const sentAt = performance.now();
  const id = await submitOne(b.writeKey);
  const answered = performance.now() - sentAt;
  await until(`the webhook of ${id}`, () => received.has(id), 3_600_000);
  return { id, ms: received.get(id)! - sentAt, sentAt, answered };
}

/** A local activity's type, from its marker's details (the step the analyses worker ran in place). */
function localActivityOf(details: unknown): string {
  const payload = (details as Record<string, { payloads?: { data?: Uint8Array | null }[] }> | null)?.data?.payloads?.[0]
    ?.data;
  return payload
    ? (JSON.parse(Buffer.from(payload).toString('utf8')) as { activity_type: string }).activity_type
    : 'local';
}

/** Where a photo's time went: its workflow history's events, in ms after its POST was sent. */
async function steps(r: { id: string; sentAt: number; answered: number }): Promise<string> {
  const history = await runtime.temporal.client.workflow.getHandle(r.id).fetchHistory();
  const at = (e: { eventTime?: { seconds?: unknown; nanos?: number | null } | null }) =>
    Math.round(
      Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6 - performance.timeOrigin - r.sentAt,
    );
  const marks = [`202 ${Math.round(r.answered)}`];
  for (const e of history.events ?? []) {
    const name = e.workflowExecutionStartedEventAttributes
      ? 'started'
      : e.workflowTaskStartedEventAttributes
        ? 'wft'
        : e.activityTaskScheduledEventAttributes
          ? 'recognition scheduled'
          : e.activityTaskStartedEventAttributes
            ? 'recognition started'
            : e.activityTaskCompletedEventAttributes
              ? 'recognition done'
              : e.markerRecordedEventAttributes?.markerName === 'core_local_activity'
                ? `${localActivityOf(e.markerRecordedEventAttributes.details)} done`
                : undefined;
    if (name) marks.push(`${name} ${at(e)}`);
  }
  marks.push(`webhook ${Math.round(received.get(r.id)! - r.sentAt)}`);
  return marks.join(', ');
}

/** Reads and submissions at a steady rate for probeS seconds; each one's latency. */
async function probe(readId: string): Promise<{ reads: number[]; submissions: number[] }> {
  const reads: number[] = [];
  const submissions: number[] = [];
  const pending: Promise<void>[] = [];
  const timed = (into: number[], fn: () => Promise<unknown>) => {
    const t = performance.now();
    pending.push(fn().then(() => void into.push(performance.now() - t)));
  };
  const end = performance.now() + settings.probeS * 1000;
  const every = (perS: number, fn: () => void) =>
    new Promise<void>((done) => {
      const timer = setInterval(() => {
        if (performance.now() >= end) {
          clearInterval(timer);
          done();
        } else fn();
      }, 1000 / perS);
    });
  await Promise.all([
    every(READS_PER_S, () =>
      timed(reads, async () => {
        const res = await call('GET', `/analyses/${readId}`, bRead);
        if (res.status !== 200) throw new Error(`read answered ${res.status}`);
      }),
    ),
    every(SUBMISSIONS_PER_S, () => timed(submissions, () => submitOne(c.writeKey))),
  ]);
  await Promise.all(pending);
  return { reads, submissions };
}

/** The recognition queue's backlog as the server counts it. */
async function recognitionBacklog(): Promise<number> {
  const res = await runtime.temporal.client.workflowService.describeTaskQueue({
    namespace: runtime.config.TEMPORAL_NAMESPACE,
    taskQueue: {
      name: `${prefix}shelf-recognition`,
      kind: protos.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
    },
    taskQueueType: protos.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    reportStats: true,
  });
  return Number(res.stats?.approximateBacklogCount ?? 0);
}

try {
  await servicesAnswer(apiPort);
  say(
    `fairness ${settings.fairness ? 'on' : 'OFF'}; recognition ${settings.recognitionMs} ms a pass; backlog ${settings.backlog}`,
  );

  // Idle: B's photos one at a time (two first, not counted: the worker's first photos warm it).
  for (let i = 0; i < 2; i++) await timeToWebhook();
  const idle: number[] = [];
  let readId = '';
  for (let i = 0; i < settings.idleN; i++) {
    const r = await timeToWebhook();
    idle.push(r.ms);
    readId = r.id;
  }
  const idleProbe = await probe(readId);
  await until('the probes’ photos', () => Promise.resolve(recognitionBacklog()).then((n) => n === 0), 120_000);
  say(`idle: B's photo in ${idle.map(ms).join(', ')}`);
  say(
    `idle: API p99 ${ms(quantile(idleProbe.reads, 0.99))} reads, ${ms(quantile(idleProbe.submissions, 0.99))} submissions`,
  );

  // Each process' memory from here to A's last photo, filed under how many of A's had completed.
  const memory: { done: number; api: number; worker: number }[] = [];
  const sampler = setInterval(() => {
    const [api, worker] = [rssMb(apiProcess.pid!), rssMb(workerProcess.pid!)];
    if (api != null && worker != null) memory.push({ done: aDone, api, worker });
  }, 250);

  // The backlog: A's photos in requests of settings.batch, settings.senders at a time.
  const requests = Array.from({ length: Math.ceil(settings.backlog / settings.batch) }, (_, i) =>
    Math.min(settings.batch, settings.backlog - i * settings.batch),
  );
  const submitting = performance.now();
  let nextRequest = 0;
  await Promise.all(
    Array.from({ length: settings.senders }, async () => {
      while (nextRequest < requests.length) {
        const n = requests[nextRequest++]!;
        if (settings.batch === 1) {
          addA(await submitOne(a.writeKey));
          continue;
        }
        const images = Array.from({ length: n }, () => ({ imageUrl: imageUrl(photoNo++) }));
        const res = await call('POST', '/analyses/batch', a.writeKey, { images });
        if (res.status !== 202) throw new Error(`batch answered ${res.status}: ${JSON.stringify(res.json)}`);
        for (const x of res.json.data.analyses as { id: string }[]) addA(x.id);
      }
    }),
  );
  const submittedS = (performance.now() - submitting) / 1000;
  say(
    `A's ${aIds.length} photos accepted in ${submittedS.toFixed(1)} s (${requests.length} ${settings.batch === 1 ? 'POST /analyses' : `batches of ${settings.batch}`}, ${settings.senders} at a time)`,
  );
  // B's photo goes in twice: while A's photos are still being started (the batches' children fetch
  // their images in the worker, in the order they come), and once half of A's photos are done.
  let lastLog = 0;
  const queued = (label: string, ready: (n: number, done: number) => boolean) =>
    until(
      label,
      async () => {
        const n = await recognitionBacklog();
        const done = aDone;
        if (performance.now() - lastLog > 5000) {
          say(`recognition backlog ${n}, ${done} of A's photos done`);
          lastLog = performance.now();
        }
        return ready(n, done) ? n : false;
      },
      3_600_000,
    );
  const measure = async (queuedNow: number) => {
    const [late, busy] = await Promise.all([timeToWebhook(), probe(readId)]);
    const doneBefore = aIds.filter((id) => (received.get(id) ?? Infinity) <= received.get(late.id)!).length;
    say(`B's photo in ${ms(late.ms)}, ${doneBefore} of A's ${aIds.length} photos done before it`);
    say(
      `  API p99 meanwhile ${ms(quantile(busy.reads, 0.99))} reads, ${ms(quantile(busy.submissions, 0.99))} submissions`,
    );
    say(`  its steps (ms after its POST): ${await steps(late)}`);
    return { queued: queuedNow, late: late.ms, doneBefore, busy };
  };
  const sentAt = performance.now();
  const starting = await measure(
    await queued(
      `a recognition backlog of ${queuedAt}`,
      (n) => n >= queuedAt || performance.now() - sentAt > STARTING_S * 1000,
    ),
  );
  const halfway = await measure(await queued(`half of A's photos done`, (_n, done) => done >= settings.backlog / 2));
  const mean = (xs: number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const memoryOver = (from: number, to: number) => {
    const inIt = memory.filter((m) => m.done >= from && m.done < to);
    return { api: mean(inIt.map((m) => m.api)), worker: mean(inIt.map((m) => m.worker)), samples: inIt.length };
  };
  // Each thousand's mean as it closes: a run stopped part way still tells how memory went.
  let thousands = 0;
  await until(
    `A's ${aIds.length} webhooks`,
    () => {
      while (aDone >= (thousands + 1) * 1000) {
        const m = memoryOver(thousands * 1000, ++thousands * 1000);
        say(
          `${thousands * 1000} of A's photos done, ${((performance.now() - submitting) / 1000).toFixed(0)} s after the first was sent; mean RSS over that thousand: API ${m.api.toFixed(1)} MB, worker ${m.worker.toFixed(1)} MB`,
        );
      }
      return aDone >= aIds.length;
    },
    4 * 3_600_000,
  );
  clearInterval(sampler);
  const drainedS = (performance.now() - submitting) / 1000;
  const firstMemory = memoryOver(0, memoryWindow);
  const lastMemory = memoryOver(aIds.length - memoryWindow, aIds.length);
  const mb = (v: number) => `${v.toFixed(1)} MB`;

  const idleMedian = quantile(idle, 0.5);
  const p99 = (v: number[]) => quantile(v, 0.99);
  const rows = [
    ...[
      ['while they are being started', starting],
      ['halfway through them', halfway],
    ].flatMap(([when, r]) => {
      const m = r as typeof starting;
      return [
        [
          `B's single photo to its webhook, A's ${settings.backlog} photos sent, ${when} (${m.queued} waiting for recognition)`,
          ms(m.late),
          `idle median ${ms(idleMedian)}`,
          ratio(m.late, idleMedian),
          '2x',
        ],
        [`  A's photos finished before B's`, String(m.doneBefore), `of ${aIds.length}`, '', ''],
        [
          `  API p99, GET /analyses/:id at ${READS_PER_S}/s for ${settings.probeS} s`,
          ms(p99(m.busy.reads)),
          `idle ${ms(p99(idleProbe.reads))}`,
          ratio(p99(m.busy.reads), p99(idleProbe.reads)),
          '2x',
        ],
        [
          `  API p99, POST /analyses at ${SUBMISSIONS_PER_S}/s for ${settings.probeS} s`,
          ms(p99(m.busy.submissions)),
          `idle ${ms(p99(idleProbe.submissions))}`,
          ratio(p99(m.busy.submissions), p99(idleProbe.submissions)),
          '2x',
        ],
      ];
    }),
    ...(['api', 'worker'] as const).map((p) => [
      `${p === 'api' ? 'API' : 'Worker'} resident memory, mean over A's last ${memoryWindow} photos completed (${lastMemory.samples} samples)`,
      mb(lastMemory[p]),
      `first ${memoryWindow}: ${mb(firstMemory[p])} (${firstMemory.samples} samples)`,
      ratio(lastMemory[p], firstMemory[p]),
      '1.10x',
    ]),
  ];
  console.log(
    `\nfairness ${settings.fairness ? 'on' : 'off'}, recognition ${settings.recognitionMs} ms a pass; ` +
      `A's ${aIds.length} photos accepted in ${submittedS.toFixed(1)} s (${settings.batch === 1 ? 'single POSTs' : `batches of ${settings.batch}`}, ${settings.senders} at a time), all completed ${drainedS.toFixed(0)} s after the first was sent\n` +
      '| measure | during the backlog | idle | ratio | target |\n|---|---|---|---|---|',
  );
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  const summary = (m: typeof starting) => ({
    queued: m.queued,
    late: Math.round(m.late),
    doneBefore: m.doneBefore,
    p99: { reads: Math.round(p99(m.busy.reads)), submissions: Math.round(p99(m.busy.submissions)) },
  });
  console.log(
    JSON.stringify({
      ...settings,
      idle: idle.map(Math.round),
      idleP99: { reads: Math.round(p99(idleProbe.reads)), submissions: Math.round(p99(idleProbe.submissions)) },
      starting: summary(starting),
      halfway: summary(halfway),
      submittedS: Math.round(submittedS * 10) / 10,
      drainedS: Math.round(drainedS),
      memory: {
        window: memoryWindow,
        firstMb: { api: Math.round(firstMemory.api), worker: Math.round(firstMemory.worker) },
        lastMb: { api: Math.round(lastMemory.api), worker: Math.round(lastMemory.worker) },
      },
    }),
  );
} finally {
  stopChildren();
  await Promise.all(
    children.map((ch) => new Promise((r) => (ch.exitCode !== null || ch.signalCode ? r(null) : ch.once('exit', r)))),
  );
  for (const s of [imageHost, model, receiver]) {
    s.closeAllConnections();
    s.close();
  }
  await runtime.close();
  await devServer?.stop();
}
process.exit(0);
