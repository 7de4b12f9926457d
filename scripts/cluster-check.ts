// `npm run cluster:check`: proves a running `npm run cluster` end to end, and exits non-zero if any
// step fails. Start the cluster with ALLOW_PRIVATE_NETWORK_FETCH=true (the photo comes from loopback).
//   1. the Temporal server is the real one: `temporal operator cluster describe` reports PostgreSQL
//      persistence and visibility and the history shard count;
//   2. an organisation and a write key are made with the admin CLI on the cluster's database;
//   3. one shelf photo (a test fixture, served by a loopback HTTP server started here) is submitted
//      to each API, and each analysis is polled on the API that took it until it is `completed`;
//   4. `temporal workflow list` on the server lists both workflows as Completed, and their
//      histories name the worker processes that ran them.
// Same environment as the cluster: DATABASE_URL (its server; the database is shelf_cluster),
// CLUSTER_TEMPORAL_PORT (7733), CLUSTER_API_PORTS (3000,3002). CLUSTER_CHECK_TIMEOUT_MS (120000)
// bounds the wait for the analyses.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { clusterSecretsKey } from './lib/topology.js';
import { findTemporalCli } from './temporal.js';
import { toolSettings } from './lib/tool-settings.js';

const root = resolve(import.meta.dirname, '..');
const started = Date.now();
const say = (msg: string) => console.log(`[cluster:check +${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);
function fail(msg: string): never {
  console.error(`[cluster:check] FAILED: ${msg}`);
  process.exit(1);
}

const appUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
appUrl.pathname = '/shelf_cluster';
const temporalAddress = `127.0.0.1:${toolSettings().CLUSTER_TEMPORAL_PORT}`;
const apiPorts = toolSettings().CLUSTER_API_PORTS.split(',').map(Number);
const timeoutMs = toolSettings().CLUSTER_CHECK_TIMEOUT_MS;

const temporalCli = findTemporalCli() ?? fail('no temporal CLI (npm run temporal:cli)');
function temporal(args: string[]): unknown {
  const r = spawnSync(temporalCli, [...args, '--address', temporalAddress, '-o', 'json'], { encoding: 'utf8' });
  if (r.status !== 0) fail(`temporal ${args.join(' ')}: ${r.stderr || r.stdout}`);
  return JSON.parse(r.stdout);
}
function adminCli(args: string[]): Record<string, unknown> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args, '--json'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: appUrl.toString(), SECRETS_KEY: clusterSecretsKey(), LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (r.status !== 0) fail(`npm run cli -- ${args.join(' ')}: ${r.stderr || r.stdout}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

// 1. The real server, on PostgreSQL.
const cluster = temporal(['operator', 'cluster', 'describe']) as Record<string, unknown>;
if (cluster.persistenceStore !== 'postgres12' || cluster.visibilityStore !== 'postgres12')
  fail(`the server at ${temporalAddress} is not on PostgreSQL: ${JSON.stringify(cluster)}`);
say(
  `Temporal ${String(cluster.serverVersion)} at ${temporalAddress}: persistence ${String(cluster.persistenceStore)}, ` +
    `visibility ${String(cluster.visibilityStore)}, ${String(cluster.historyShardCount)} history shards`,
);

// 2. An organisation and a write key, with the admin CLI.
const org = adminCli(['org:create', '--name', `cluster check ${new Date().toISOString()}`, '--credits', '10']);
const orgId = String(org.id);
const key = String(adminCli(['key:create', '--org', orgId, '--role', 'write', '--name', 'cluster-check']).key);
say(`organisation ${orgId} with a write key (admin CLI on ${appUrl.pathname.slice(1)})`);

// 3. One photo to each API, each polled until it is final.
const photo = readFileSync(resolve(root, 'test/fixtures/synthetic-shelves/shelf-01.jpg'));
const images = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo));
await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
const imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/shelf-01.jpg`;
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

type Analysis = { id: string; status: string; productCount?: number; error?: unknown };
async function analyse(port: number): Promise<Analysis & { port: number; seconds: number }> {
  const api = `http://127.0.0.1:${port}/api/v1`;
  const t0 = Date.now();
  const res = await fetch(`${api}/analyses`, { method: 'POST', headers, body: JSON.stringify({ imageUrl }) });
  if (res.status !== 202) fail(`POST ${api}/analyses answered ${res.status}: ${await res.text()}`);
  const { id } = ((await res.json()) as { data: Analysis }).data;
  say(`submitted ${id} to ${api}`);
  for (;;) {
    const got = await fetch(`${api}/analyses/${id}`, { headers });
    if (!got.ok) fail(`GET ${api}/analyses/${id} answered ${got.status}: ${await got.text()}`);
    const a = ((await got.json()) as { data: Analysis }).data;
    if (a.status !== 'processing') return { ...a, port, seconds: (Date.now() - t0) / 1000 };
    if (Date.now() - t0 > timeoutMs) fail(`${id} still ${a.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
let analyses: Awaited<ReturnType<typeof analyse>>[];
try {
  analyses = await Promise.all(apiPorts.map(analyse));
} finally {
  images.close();
}
for (const a of analyses) {
  if (a.status !== 'completed') {
    const hint = JSON.stringify(a.error).includes('PRIVATE')
      ? ' (start the cluster with ALLOW_PRIVATE_NETWORK_FETCH=true)'
      : '';
    fail(`${a.id} (API :${a.port}) ended ${a.status}: ${JSON.stringify(a.error)}${hint}`);
  }
  say(`${a.id} (API :${a.port}) completed in ${a.seconds.toFixed(1)} s with ${a.productCount} products`);
}

// 4. Both workflows, as the Temporal server records them.
type Listed = { execution: { workflowId: string }; status: string };
const listed = temporal(['workflow', 'list', '--query', `OrganisationId = '${orgId}'`]) as Listed[];
for (const a of analyses) {
  const w = listed.find((l) => l.execution.workflowId === a.id);
  if (w?.status !== 'WORKFLOW_EXECUTION_STATUS_COMPLETED')
    fail(`temporal workflow list has ${a.id} as ${w?.status ?? 'missing'}: ${JSON.stringify(listed)}`);
  const history = JSON.stringify(temporal(['workflow', 'show', '--workflow-id', a.id]));
  const identities = [...new Set([...history.matchAll(/"identity":"([^"]+)"/g)].map((m) => m[1]))];
  say(`temporal workflow list: ${a.id} Completed; history identities ${identities.join(', ')}`);
}
say(`OK: ${analyses.length} analyses through ${analyses.length} APIs, completed on the real Temporal server`);
