// Finds or provides the `temporal` CLI and runs its dev server (SQLite file, Web UI).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { delimiter, join } from 'node:path';
import { cacheDir } from '../src/lib/cache-dir.js';
import { SA, SEARCH_ATTRIBUTE_NAMES } from '../src/temporal/contracts/search-attributes.js';

/** Newest CLI tag whose go.mod has no `replace` directives, so `go install` works. */
const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
export const CACHE_BIN = join(cacheDir(), 'bin');

export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * TEMPORAL_CLI_PATH, then `temporal` on PATH, then our cache, then a one-time `go install` into
 * the cache. Returns undefined when none works (callers fall back to @temporalio/testing's download).
 */
export function findTemporalCli(log: (msg: string) => void = console.error): string | undefined {
  if (process.env.TEMPORAL_CLI_PATH) {
    if (existsSync(process.env.TEMPORAL_CLI_PATH)) return process.env.TEMPORAL_CLI_PATH;
    throw new Error(`TEMPORAL_CLI_PATH=${process.env.TEMPORAL_CLI_PATH} does not exist`);
  }
  const found = onPath('temporal');
  if (found) return found;
  return goInstall(CLI_MODULE, 'temporal', log);
}

/**
 * `go install module` into our cache once (the Go module proxy is reachable where npm is); returns
 * the binary's path there, or undefined when there is no Go toolchain or the build fails.
 */
export function goInstall(
  module: string,
  binary: string,
  log: (msg: string) => void = console.error,
): string | undefined {
  const path = join(CACHE_BIN, binary);
  if (existsSync(path)) return path;
  if (!onPath('go')) return undefined;
  log(`Building ${binary} once with 'go install ${module}' into ${CACHE_BIN}...`);
  mkdirSync(CACHE_BIN, { recursive: true });
  const result = spawnSync('go', ['install', module], { env: { ...process.env, GOBIN: CACHE_BIN }, stdio: 'inherit' });
  if (result.status === 0 && existsSync(path)) return path;
  log(`go install ${module} failed.`);
  return undefined;
}

export function waitForPort(port: number, host = '127.0.0.1', timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = createConnection({ port, host });
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`nothing listening on ${host}:${port} after ${timeoutMs} ms`));
        else setTimeout(attempt, 200);
      });
    };
    attempt();
  });
}

/** `pid`: the server process's, where this process started it (what a benchmark charges its CPU to). */
export type DevServer = { address: string; uiUrl?: string; pid?: number; stop(): Promise<void> };

/**
 * How a dev server keeps a file store (`npm start`'s `.data/temporal.db`): SQLite in WAL mode, every
 * commit still synced (synchronous=FULL). In its default rollback-journal mode each commit wrote and
 * synced the journal and the database both; WAL appends once. Starts per second, 20 at a time, on one
 * host: 152 -> 250 (docs/history/performance-log.md, "A warm API, and npm start's Temporal store"). Durability is
 * the same: a commit is on disk when the server answers.
 */
export const FILE_STORE_PRAGMAS = ['journal_mode=wal', 'synchronous=full'];
/** FILE_STORE_PRAGMAS as the dev server's arguments, for both ways of starting it. */
const FILE_STORE_ARGS = FILE_STORE_PRAGMAS.flatMap((p) => ['--sqlite-pragma', p]);

/**
 * The server's dynamic config, the same for the dev server (flags, below) and production
 * (ops/temporal/dynamic-config.yaml; test/ops/temporal-dynamic-config.test.ts holds them equal).
 * Fairness: backlogged tasks dispatch round robin across fairness keys, weighted, instead of in
 * arrival order (docs/decisions.md, "Fair dispatch across organisations"); it implies the
 * priority-aware matcher. Off by default in Temporal 1.29.
 */
export const DYNAMIC_CONFIG: Readonly<Record<string, unknown>> = {
  'matching.enableFairness': true,
  // Fairness holds within a partition, and a task lands in one of a queue's partitions at random: with
  // Temporal's default four, another organisation's photo took 16th to 25th place behind a backlog of
  // 40 instead of 1st to 4th (test/modules/analyses/fair-dispatch.test.ts). One partition carries far
  // more than this service's queues ask of it.
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
};

export type DevServerOptions = {
  port: number;
  uiPort?: number;
  dbFile?: string;
  headless?: boolean;
  log?: (msg: string) => void;
  /** Instead of DYNAMIC_CONFIG (a benchmark's comparison without fairness). */
  dynamicConfig?: Readonly<Record<string, unknown>>;
};

/** `--dynamic-config-value KEY=VALUE` for each entry, the value as JSON (what the CLI parses). */
function dynamicConfigArgs(values: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(values).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}

/** Starts `temporal server start-dev` with our search attributes registered. */
export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const log = opts.log ?? console.error;
  const cli = findTemporalCli(log);
  const saArgs = SEARCH_ATTRIBUTE_NAMES.flatMap((name) => ['--search-attribute', `${name}=Keyword`]);
  if (!cli) return startDownloadedDevServer(opts, log);
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--log-level',
    'warn',
    ...saArgs,
    ...dynamicConfigArgs(opts.dynamicConfig ?? DYNAMIC_CONFIG),
  ];
  if (opts.dbFile) args.push('--db-filename', opts.dbFile, ...FILE_STORE_ARGS);
  if (opts.headless || !opts.uiPort) args.push('--headless');
  else args.push('--ui-port', String(opts.uiPort), '--ui-ip', '127.0.0.1');
  const child: ChildProcess = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // The server never outlives the process that started it, however that process ends (a benchmark
  // or test failing part way): left running, it holds its port and, for a file store, its file. At
  // exit nothing can be awaited, so it is asked to stop and stops on its own (a file store loses
  // nothing: every commit is synced).
  const running = () => child.exitCode === null && child.signalCode === null;
  const stopOnExit = () => {
    if (running()) child.kill('SIGTERM');
  };
  process.on('exit', stopOnExit);
  void exited.then(() => process.off('exit', stopOnExit));
  await Promise.race([
    waitForPort(opts.port),
    exited.then(() => {
      throw new Error(`temporal dev server exited at start:\n${stderr}`);
    }),
  ]);
  return {
    address: `127.0.0.1:${opts.port}`,
    uiUrl: opts.uiPort && !opts.headless ? `http://127.0.0.1:${opts.uiPort}` : undefined,
    pid: child.pid,
    async stop() {
      if (running()) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** Last resort where there is internet but no Go: the CLI download that @temporalio/testing performs. */
async function startDownloadedDevServer(opts: DevServerOptions, log: (msg: string) => void): Promise<DevServer> {
  log('No Temporal CLI found and no Go toolchain: downloading the dev server through @temporalio/testing...');
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: '127.0.0.1',
      port: opts.port,
      ui: !opts.headless && !!opts.uiPort,
      uiPort: opts.uiPort,
      dbFilename: opts.dbFile,
      searchAttributes: Object.values(SA),
      extraArgs: [...(opts.dbFile ? FILE_STORE_ARGS : []), ...dynamicConfigArgs(opts.dynamicConfig ?? DYNAMIC_CONFIG)],
    },
  });
  return {
    address: `127.0.0.1:${opts.port}`,
    uiUrl: opts.uiPort && !opts.headless ? `http://127.0.0.1:${opts.uiPort}` : undefined,
    stop: () => env.teardown(),
  };
}

// `npm run temporal:cli` prints the path (building it if needed), for CI and curious users.
if (process.argv[1]?.endsWith('temporal.ts') && process.argv.includes('--print-path')) {
  const cli = findTemporalCli();
  if (!cli) {
    console.error('Temporal CLI unavailable');
    process.exit(1);
  }
  console.log(cli);
}
