// The pieces `npm run cluster` and `npm run soak` both start the production topology with: the
// namespace on a fresh Temporal server, the service's database, the API and worker processes, their
// health, and the watch on the launchers between us and whoever typed the command.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { msToTs } from '@temporalio/common';
import { procStat } from '../../src/lib/proc-stat.js';
import pg from 'pg';
import { createTemporalClient, temporalHealthy } from '../../src/temporal/client.js';
import { ensureSearchAttributes } from '../../src/temporal/setup.js';
import { nodeFlagsFor } from '../../workers/node-flags.js';

export const root = resolve(import.meta.dirname, '../..');

/**
 * Waits until the server answers GetSystemInfo, then registers the `default` namespace (3-day
 * retention) and our search attributes: a real server starts with neither. Idempotent.
 */
export async function prepareNamespace(address: string, log: (msg: string) => void): Promise<void> {
  const handle = createTemporalClient(address, 'default');
  try {
    for (let i = 0; !(await temporalHealthy(handle)); i++) {
      if (i > 60) throw new Error(`the Temporal server at ${address} never answered GetSystemInfo`);
      await new Promise((r) => setTimeout(r, 500));
    }
    try {
      await handle.connection.workflowService.registerNamespace({
        namespace: 'default',
        workflowExecutionRetentionPeriod: msToTs('3 days'),
      });
      log('namespace default registered');
    } catch (err) {
      if (!/already exists|AlreadyExists/i.test(String(err))) throw err;
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const added = await ensureSearchAttributes(handle, 'default');
        if (added.length) log(`search attributes added: ${added.join(', ')}`);
        break;
      } catch (err) {
        // The namespace reaches the other services on their cache refresh (about 10 s).
        if (attempt > 30) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  } finally {
    await handle.connection.close();
  }
}

/**
 * The SECRETS_KEY of `npm run cluster`'s database (shelf_cluster): SECRETS_KEY if set, else the key
 * kept in .data/cluster-secrets.key (mode 600, made on first use), so the cluster's processes and
 * `npm run cluster:check`'s admin CLI open what the cluster sealed, run after run.
 */
export function clusterSecretsKey(): string {
  if (process.env.SECRETS_KEY) return process.env.SECRETS_KEY;
  const dataDir = join(root, '.data');
  mkdirSync(dataDir, { recursive: true });
  const keyFile = join(dataDir, 'cluster-secrets.key');
  if (!existsSync(keyFile)) writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  return readFileSync(keyFile, 'utf8').trim();
}

/** Creates database `name` on the server of `serverUrl` unless it exists; returns its URL. */
export async function ensureDatabase(serverUrl: URL, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl.toString() });
  await admin.connect();
  try {
    const exists = await admin.query(`select 1 from pg_database where datname = $1`, [name]);
    if (exists.rowCount === 0) await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A TypeScript entry point of ours (API, worker, migration) as a Node process, run through tsx. */
export function spawnScript(script: string, env: NodeJS.ProcessEnv, stdio: StdioOptions = 'inherit'): ChildProcess {
  return spawn(process.execPath, [...nodeFlagsFor(script), '--import', 'tsx', script], { cwd: root, env, stdio });
}

/** Resolves once `url` answers 2xx; rejects after `timeoutMs`. */
export async function healthy(url: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} never became healthy`);
}

export const alive = (c: ChildProcess): boolean => c.exitCode === null && c.signalCode === null;

/**
 * `npm run` starts us through `sh -c` and tsx; a SIGTERM to npm ends sh without passing it on, which
 * would leave everything we started running. So the launchers between us and whoever typed the
 * command are watched, and `onGone` is called when one of them is gone (Linux /proc; elsewhere,
 * nothing is watched).
 */
export function watchLaunchers(onGone: (pid: number) => void): void {
  const chain: number[] = [];
  for (let pid = process.ppid; pid > 1;) {
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      break;
    }
    const stat = procStat(pid);
    if (!stat || !/^(\S*\/)?((node|npm|npx|tsx)( |$)|(sh|dash|bash) -c )/.test(cmd)) break;
    chain.push(pid);
    pid = stat.ppid;
  }
  // Gone: no /proc entry, or a zombie nobody has reaped yet.
  const gone = (pid: number) => {
    const stat = procStat(pid);
    return stat === null || stat.state === 'Z';
  };
  setInterval(() => {
    const dead = chain.find(gone);
    if (dead !== undefined) onGone(dead);
  }, 1000).unref();
}
