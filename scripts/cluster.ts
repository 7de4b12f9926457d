// `npm run cluster`: the production topology on this machine, without Docker.
//   - a real Temporal server (not the dev server), built from go.temporal.io/server, on PostgreSQL
//     (databases temporal_cluster and temporal_cluster_visibility on DATABASE_URL's server, schema by
//     temporal-sql-tool), 4 history shards, config ops/temporal/production.yaml;
//   - the `default` namespace and our search attributes registered on it;
//   - our migrations applied to shelf_cluster on the same server;
//   - two API processes and two worker processes against it.
// Ctrl-C (or SIGTERM) stops everything it started. Ports: CLUSTER_TEMPORAL_PORT (7733),
// CLUSTER_API_PORTS (3000,3002), CLUSTER_WORKER_PORTS (3001,3003); metrics ports follow (README).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { msToTs } from '@temporalio/common';
import pg from 'pg';
import { createTemporalClient } from '../src/temporal/client.js';
import { ensureSearchAttributes } from '../src/temporal/setup.js';
import { serverBinaries, setupSchema, startTemporalServer, type TemporalServer } from './temporal-server.js';

const root = resolve(import.meta.dirname, '..');
const say = (msg: string) => console.log(`[cluster] ${msg}`);
const serverUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const ports = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').map(Number);
const temporalPort = Number(process.env.CLUSTER_TEMPORAL_PORT ?? 7733);
const apiPorts = ports('CLUSTER_API_PORTS', '3000,3002');
const workerPorts = ports('CLUSTER_WORKER_PORTS', '3001,3003');

const children: ChildProcess[] = [];
let temporal: TemporalServer | undefined = undefined;
let stopping = false;
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    say('stopping');
    await Promise.all(
      children.map(
        (c) =>
          new Promise((r) =>
            c.exitCode !== null || c.signalCode !== null ? r(null) : (c.once('exit', r), c.kill('SIGTERM')),
          ),
      ),
    );
    await temporal?.stop();
  }
  process.exit(code);
}
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

// 1. The Temporal server on PostgreSQL.
const { server, sqlTool } = serverBinaries(say);
const db = {
  host: serverUrl.hostname,
  port: Number(serverUrl.port || 5432),
  user: decodeURIComponent(serverUrl.username || 'postgres'),
  password: decodeURIComponent(serverUrl.password),
  main: 'temporal_cluster',
  visibility: 'temporal_cluster_visibility',
};
setupSchema(sqlTool, db, say);
temporal = await startTemporalServer(server, db, {
  port: temporalPort,
  portBase: temporalPort + 10,
  metricsPort: temporalPort + 30,
});
say(`Temporal server (PostgreSQL, 4 shards) at ${temporal.address}, its metrics on :${temporalPort + 30}`);

// 2. The namespace and our search attributes (a real server starts with neither).
const handle = createTemporalClient(temporal.address, 'default');
try {
  await handle.connection.workflowService.registerNamespace({
    namespace: 'default',
    workflowExecutionRetentionPeriod: msToTs('3 days'),
  });
  say('namespace default registered');
} catch (err) {
  if (!/already exists|AlreadyExists/i.test(String(err))) throw err;
}
for (let attempt = 0; ; attempt++) {
  try {
    const added = await ensureSearchAttributes(handle, 'default');
    if (added.length) say(`search attributes added: ${added.join(', ')}`);
    break;
  } catch (err) {
    // The namespace reaches the other services on their cache refresh (about 10 s).
    if (attempt > 30) throw err;
    await new Promise((r) => setTimeout(r, 1000));
  }
}
await handle.connection.close();

// 3. The service's database.
const appUrl = new URL(serverUrl);
appUrl.pathname = '/shelf_cluster';
const admin = new pg.Client({ connectionString: serverUrl.toString() });
await admin.connect();
const exists = await admin.query(`select 1 from pg_database where datname = 'shelf_cluster'`);
if (exists.rowCount === 0) await admin.query('create database shelf_cluster');
await admin.end();
const dataDir = join(root, '.data');
mkdirSync(dataDir, { recursive: true });
const keyFile = join(dataDir, 'cluster-secrets.key');
if (!existsSync(keyFile)) writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
const env = {
  ...process.env,
  DATABASE_URL: appUrl.toString(),
  TEMPORAL_ADDRESS: temporal.address,
  TEMPORAL_NAMESPACE: 'default',
  SECRETS_KEY: process.env.SECRETS_KEY ?? readFileSync(keyFile, 'utf8').trim(),
};
function run(label: string, args: string[], extra: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: root,
    env: { ...env, ...extra },
    stdio: 'inherit',
  });
  child.once('exit', (code, signal) => {
    if (!stopping) {
      say(`${label} exited (${signal ?? code}); stopping the cluster`);
      void stop(1);
    }
  });
  return child;
}
await new Promise<void>((done, fail) =>
  spawn(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts'], { cwd: root, env, stdio: 'inherit' }).once(
    'exit',
    (code) => (code === 0 ? done() : fail(new Error(`migrate exited ${code}`))),
  ),
);

// 4. Two APIs and two workers.
apiPorts.forEach((port, i) =>
  children.push(run(`api ${i + 1}`, ['src/bin/api.ts'], { PORT: String(port), METRICS_PORT: String(9464 + 2 * i) })),
);
workerPorts.forEach((port, i) =>
  children.push(
    run(`worker ${i + 1}`, ['workers/main.ts'], {
      WORKER_HEALTH_PORT: String(port),
      TEMPORAL_METRICS_PORT: String(9465 + 2 * i),
    }),
  ),
);
const healthy = async (url: string) => {
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} never became healthy`);
};
await Promise.all([
  ...apiPorts.map((p) => healthy(`http://127.0.0.1:${p}/health/ready`)),
  ...workerPorts.map((p) => healthy(`http://127.0.0.1:${p}/health`)),
]);
say(
  `ready: APIs on ${apiPorts.map((p) => `http://127.0.0.1:${p}/api/v1`).join(' and ')}; workers' health on ${workerPorts.join(', ')}`,
);
say(
  `database ${appUrl.toString()}; Temporal ${temporal.address} (temporal workflow list --address ${temporal.address}). Ctrl-C stops everything.`,
);
