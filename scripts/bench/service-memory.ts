// `npm run bench:service-memory`: whether the API's and the worker's resident memory stay flat over
// many analyses (issue 39: < 10 % growth over 5,000). The API and a worker each their own process as
// `npm start` runs them; the photos' host, the vision model (the `openai` recognizer against a
// chat-completions stand-in, as the soak runs it: recognition is not what grows here) and the webhook
// endpoint on loopback. BENCH_MEMORY_N (5000) analyses, at most BENCH_MEMORY_IN_FLIGHT (40) between
// their POST and their signed analysis.completed webhook. Each process' RSS (/proc) is sampled every
// 250 ms; prints, per thousand analyses completed, the mean RSS of each process over that thousand, then
// the last thousand's against the first's. Asserts nothing. Needs DATABASE_URL (a server: a
// `shelf_bench` database, or BENCH_DATABASE, is recreated there) and TEMPORAL_ADDRESS, or starts a dev
// server of its own (BENCH_TEMPORAL_PORT, 7262).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServices } from '../../src/services.js';
import { startPhotoHost, startVisionModel } from '../soak/stand-ins.js';
import { rssMb, serviceProcess, servicesAnswer } from './service-processes.js';
import { benchEnvironment, benchOrganisation, benchRuntime } from './setup.js';
import { toolSettings } from '../lib/tool-settings.js';

const N = toolSettings().BENCH_MEMORY_N;
const IN_FLIGHT = toolSettings().BENCH_MEMORY_IN_FLIGHT;
const say = (msg: string) => console.error(`[bench] ${msg}`);

const { databaseUrl, devServer } = await benchEnvironment(7262);
const { prefix, runtime } = await benchRuntime();
const services = createServices(runtime.orm.em.fork(), { config: runtime.config, logger: runtime.logger });
const { org, writeKey } = await benchOrganisation(services, 'Bench memory');

const model = await startVisionModel();
const photos = await startPhotoHost();
// The stand-in keeps each request for tests to read: here nobody reads them, and 5,000 photos' worth
// would be this process' memory, not the service's.
const keepNoRequests = setInterval(() => (model.requests.length = 0), 1000);

const received = new Set<string>();
let onReceived = () => {};
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string; data: { id: string } };
    if (body.event === 'analysis.completed' && req.headers['x-service-signature']) {
      received.add(body.data.id);
      onReceived();
    }
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
await services.webhooks.create(org.id, {
  url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/completed`,
  events: ['analysis.completed'],
});

const apiPort = 41000 + Math.floor(Math.random() * 1000);
const env = {
  DATABASE_URL: databaseUrl,
  TASK_QUEUE_PREFIX: prefix,
  RECOGNIZER: 'openai',
  OPENAI_BASE_URL: model.baseURL,
  OPENAI_API_KEY: model.apiKey,
  OPENAI_MODEL: 'bench-vision',
};
const api = serviceProcess('src/bin/api.ts', { ...env, PORT: String(apiPort), HOST: '127.0.0.1' });
// Ports of its own: the SDK's metrics port is fixed by default, and another worker may hold it.
const worker = serviceProcess('workers/main.ts', {
  ...env,
  WORKER_HEALTH_PORT: String(apiPort + 1),
  TEMPORAL_METRICS_PORT: String(apiPort + 2),
});
const children = [api, worker];
process.once('exit', () => children.forEach((c) => c.kill('SIGTERM')));

await servicesAnswer(apiPort);

// Samples of each process' RSS, each with how many analyses had completed when it was taken.
const samples: { done: number; api: number; worker: number }[] = [];
const sampler = setInterval(() => {
  const a = rssMb(api.pid!);
  const w = rssMb(worker.pid!);
  if (a != null && w != null) samples.push({ done: received.size, api: a, worker: w });
}, 250);

say(`service memory: ${N} analyses, at most ${IN_FLIGHT} in flight, API pid ${api.pid}, worker pid ${worker.pid}`);
const t0 = performance.now();
let sent = 0;
const submitOne = async (i: number) => {
  const res = await fetch(`http://127.0.0.1:${apiPort}/api/v1/analyses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${writeKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ imageUrl: photos.url(i, 'ok') }),
  });
  if (res.status !== 202) throw new Error(`submission answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
};
// Keeps IN_FLIGHT analyses between their POST and their webhook: the service's steady state, not a
// backlog growing in Temporal (whose memory would be the backlog's, not a leak's).
await new Promise<void>((done, fail) => {
  const topUp = () => {
    while (sent < N && sent - received.size < IN_FLIGHT) submitOne(sent++).catch(fail);
    if (received.size >= N) done();
  };
  let lastThousand = 0;
  onReceived = () => {
    const k = Math.floor(received.size / 1000);
    if (k > lastThousand) {
      lastThousand = k;
      say(
        `  ${received.size} completed in ${((performance.now() - t0) / 1000).toFixed(0)} s; RSS API ${rssMb(api.pid!)?.toFixed(0)} MB, worker ${rssMb(worker.pid!)?.toFixed(0)} MB`,
      );
    }
    topUp();
  };
  topUp();
});
clearInterval(sampler);
const seconds = (performance.now() - t0) / 1000;

const thousands = Math.ceil(N / 1000);
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
const per = Array.from({ length: thousands }, (_, k) => {
  const inIt = samples.filter((s) => s.done >= k * 1000 && s.done < (k + 1) * 1000);
  return { k, api: mean(inIt.map((s) => s.api)), worker: mean(inIt.map((s) => s.worker)), n: inIt.length };
});
const fmt = (mb: number) => `${mb.toFixed(1)} MB`;
const growth = (first: number, last: number) => `${(100 * (last / first - 1)).toFixed(1)} %`;
console.log(
  `\n${N} analyses in ${seconds.toFixed(0)} s (${(N / seconds).toFixed(1)} /s), at most ${IN_FLIGHT} in flight\n`,
);
console.log('| analyses completed | API RSS (mean) | worker RSS (mean) | samples |\n|---|---|---|---|');
for (const p of per)
  console.log(`| ${p.k * 1000 + 1}–${Math.min(N, (p.k + 1) * 1000)} | ${fmt(p.api)} | ${fmt(p.worker)} | ${p.n} |`);
const first = per[0]!;
const last = per[per.length - 1]!;
console.log(
  `| growth, last thousand against the first | ${growth(first.api, last.api)} | ${growth(first.worker, last.worker)} | |`,
);
// The first thousand includes each process' warm-up (compiled code, pools, caches filling): the second
// is the first of the steady state.
const second = per[1];
if (second && second !== last)
  console.log(
    `| growth, last thousand against the second | ${growth(second.api, last.api)} | ${growth(second.worker, last.worker)} | |`,
  );
console.log(
  JSON.stringify({
    analyses: N,
    seconds: Math.round(seconds),
    api: { firstMb: first.api, lastMb: last.api, growth: last.api / first.api - 1 },
    worker: { firstMb: first.worker, lastMb: last.worker, growth: last.worker / first.worker - 1 },
  }),
);

clearInterval(keepNoRequests);
children.forEach((c) => c.kill('SIGTERM'));
await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
receiver.close();
await photos.host.close();
await model.close();
await runtime.close();
await devServer?.stop();
process.exit(0);
