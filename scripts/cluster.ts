// `npm run cluster`: the production topology on this machine, without Docker.
//   - a real Temporal server (not the dev server), built from go.temporal.io/server, on PostgreSQL
//     (databases temporal_cluster and temporal_cluster_visibility on DATABASE_URL's server, schema by
//     temporal-sql-tool), 4 history shards, config ops/temporal/production.yaml;
//   - the `default` namespace and our search attributes registered on it;
//   - our migrations applied to shelf_cluster on the same server;
//   - two API processes and two worker processes against it.
// Every step is idempotent: a second run finds the databases, schema, namespace and attributes there.
// Ctrl-C, SIGTERM or SIGHUP (to this process or to the `npm run` that started it) stops everything it
// started: APIs and workers first, then the server; whatever is still running after
// CLUSTER_STOP_GRACE_MS (30000) gets SIGKILL, and so does everything on a second Ctrl-C. A failed start,
// or any of the processes exiting, stops the rest too.
// Ports: CLUSTER_TEMPORAL_PORT (7733; the server's other services take +11..+18, its metrics +30),
// CLUSTER_API_PORTS (3000,3002), CLUSTER_WORKER_PORTS (3001,3003), CLUSTER_METRICS_PORT (9464: the
// APIs' metrics from there in steps of 2, the workers' SDK metrics one above each).
// `npm run cluster:check` proves a running cluster end to end.
import type { ChildProcess } from 'node:child_process';
import {
  alive,
  clusterSecretsKey,
  ensureDatabase,
  healthy,
  prepareNamespace,
  spawnScript,
  watchLaunchers,
} from './lib/topology.js';
import { redactUrl } from './lib/redact-url.js';
import { serverBinaries, setupSchema, startTemporalServer } from './temporal-server.js';
import { waitForPort } from './temporal.js';
import { toolSettings } from './lib/tool-settings.js';

const say = (msg: string) => console.log(`[cluster] ${msg}`);
const serverUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const ports = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').map(Number);
const temporalPort = toolSettings().CLUSTER_TEMPORAL_PORT;
const apiPorts = ports('CLUSTER_API_PORTS', '3000,3002');
const workerPorts = ports('CLUSTER_WORKER_PORTS', '3001,3003');
const metricsPort = toolSettings().CLUSTER_METRICS_PORT;
const graceMs = toolSettings().CLUSTER_STOP_GRACE_MS;

// Everything started, the Temporal server kept apart: it stops last.
const children: ChildProcess[] = [];
let server: ChildProcess | undefined;
let stopping = false;

function terminate(c: ChildProcess): Promise<void> {
  if (!alive(c)) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => {
      say(`pid ${c.pid} still running ${graceMs} ms after SIGTERM: SIGKILL`);
      c.kill('SIGKILL');
    }, graceMs);
    c.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    c.kill('SIGTERM');
  });
}

async function stop(code: number, why: string): Promise<void> {
  if (stopping) {
    // A second signal: no more waiting.
    for (const c of [...children, ...(server ? [server] : [])]) if (alive(c)) c.kill('SIGKILL');
    process.exit(code || 130);
  }
  stopping = true;
  say(`stopping (${why})`);
  await Promise.all(children.map(terminate));
  if (server) await terminate(server);
  say('all processes stopped');
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(0, signal));

function run(label: string, script: string, env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawnScript(script, env);
  children.push(child);
  child.once('exit', (code, signal) => {
    if (!stopping) {
      say(`${label} exited (${signal ?? code}); stopping the cluster`);
      void stop(1, `${label} exited`);
    }
  });
  return child;
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

  // 1. The Temporal server on PostgreSQL.
  const { server: serverBinary, sqlTool } = serverBinaries(say);
  const db = {
    host: serverUrl.hostname,
    port: Number(serverUrl.port || 5432),
    user: decodeURIComponent(serverUrl.username || 'postgres'),
    password: decodeURIComponent(serverUrl.password),
    main: 'temporal_cluster',
    visibility: 'temporal_cluster_visibility',
  };
  setupSchema(sqlTool, db, say);
  // Something already there (another cluster?) would pass for our server's frontend.
  const taken = await waitForPort(temporalPort, '127.0.0.1', 0).then(
    () => true,
    () => false,
  );
  if (taken) throw new Error(`port ${temporalPort} is in use (another cluster? set CLUSTER_TEMPORAL_PORT)`);
  const temporal = await startTemporalServer(serverBinary, db, {
    port: temporalPort,
    portBase: temporalPort + 10,
    metricsPort: temporalPort + 30,
    onSpawn: (child) => {
      server = child;
      child.once('exit', (code, signal) => {
        if (!stopping) void stop(1, `the Temporal server exited (${signal ?? code})`);
      });
    },
  });
  if (stopping) return;

  // 2. The namespace and our search attributes (a real server starts with neither).
  await prepareNamespace(temporal.address, say);
  say(`Temporal server (PostgreSQL, 4 shards) ready at ${temporal.address} after ${elapsed()}`);

  // 3. The service's database.
  const appUrl = new URL(await ensureDatabase(serverUrl, 'shelf_cluster'));
  const env = {
    ...process.env,
    DATABASE_URL: appUrl.toString(),
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: 'default',
    SECRETS_KEY: clusterSecretsKey(),
  };
  const migrate = spawnScript('scripts/migrate.ts', env);
  children.push(migrate);
  const migrated = await new Promise<number | null>((done) => migrate.once('exit', done));
  if (stopping) return;
  if (migrated !== 0) throw new Error(`migrate exited ${migrated}`);

  // 4. Two APIs and two workers.
  apiPorts.forEach((port, i) =>
    run(`api ${i + 1}`, 'src/bin/api.ts', { ...env, PORT: String(port), METRICS_PORT: String(metricsPort + 2 * i) }),
  );
  workerPorts.forEach((port, i) =>
    run(`worker ${i + 1}`, 'workers/main.ts', {
      ...env,
      WORKER_HEALTH_PORT: String(port),
      TEMPORAL_METRICS_PORT: String(metricsPort + 1 + 2 * i),
    }),
  );
  await Promise.all([
    ...apiPorts.map((p) => healthy(`http://127.0.0.1:${p}/health/ready`)),
    ...workerPorts.map((p) => healthy(`http://127.0.0.1:${p}/health`)),
  ]);
  if (stopping) return;
  say(`ready after ${elapsed()}:`);
  say(
    `  Temporal server  ${temporal.address} (pid ${server?.pid}), metrics http://127.0.0.1:${temporalPort + 30}/metrics`,
  );
  say(`                   temporal workflow list --address ${temporal.address}`);
  apiPorts.forEach((p, i) =>
    say(
      `  API ${i + 1}            http://127.0.0.1:${p}/api/v1 (pid ${children[1 + i]?.pid}), metrics :${metricsPort + 2 * i}`,
    ),
  );
  workerPorts.forEach((p, i) =>
    say(
      `  worker ${i + 1}         health http://127.0.0.1:${p}/health (pid ${children[1 + apiPorts.length + i]?.pid}), SDK metrics :${metricsPort + 1 + 2 * i}`,
    ),
  );
  // Never the password (DATABASE_URL's): this goes to a terminal and to whatever logs it.
  say(`  database         ${redactUrl(appUrl)}; Temporal's: ${db.main}, ${db.visibility}`);
  say('Ctrl-C stops everything.');
}

watchLaunchers((pid) => {
  if (!stopping) void stop(0, `launcher ${pid} is gone`);
});
main().catch((err: unknown) => {
  console.error(err);
  void stop(1, 'start failed');
});
