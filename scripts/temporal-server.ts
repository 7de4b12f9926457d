// The real Temporal server (not the dev server): built once from its Go module, with
// temporal-sql-tool for its PostgreSQL schema, both cached beside the CLI in ~/.cache/shelf-service/bin.
// `npm run temporal:server` prints the server binary's path (building it if needed).
// Where each binary comes from, first match wins (as scripts/temporal.ts does for the CLI):
//   TEMPORAL_SERVER_PATH / TEMPORAL_SQL_TOOL_PATH, then `temporal-server` / `temporal-sql-tool` on PATH
//   (their names in Temporal's images), then the cache, then `go install` into the cache once.
//   Each must be SERVER_VERSION: the schema applied comes from that version's module.
import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CACHE_BIN, onPath, waitForPort } from './temporal.js';

/** Same server version as the one embedded in the CLI we build (its Go build cache is shared). */
export const SERVER_VERSION = 'v1.29.1';
const MODULE = 'go.temporal.io/server';
const root = resolve(import.meta.dirname, '..');

/** The version a binary reports (`temporal version 1.29.1`, `temporal-sql-tool version 1.29.1`). */
function versionOf(binary: string): string | undefined {
  const out = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout ?? '';
  return /version (\S+)/.exec(out)?.[1];
}

function find(
  pkg: string,
  { env, pathName, cached }: { env: string; pathName: string; cached: string },
  log: (msg: string) => void,
): string {
  const wanted = SERVER_VERSION.slice(1);
  const given = process.env[env];
  if (given) {
    if (!existsSync(given)) throw new Error(`${env}=${given} does not exist`);
    const version = versionOf(given);
    if (version !== wanted) throw new Error(`${env}=${given} is version ${version ?? '?'}, not ${wanted}`);
    return given;
  }
  const onSystem = onPath(pathName);
  if (onSystem) {
    const version = versionOf(onSystem);
    if (version === wanted) return onSystem;
    log(`Ignoring ${onSystem}: version ${version ?? '?'}, not ${wanted}`);
  }
  const path = join(CACHE_BIN, cached);
  if (existsSync(path)) return path;
  if (!onPath('go')) throw new Error(`${cached} is not in ${CACHE_BIN} and there is no Go toolchain to build it`);
  log(`Building ${pkg}@${SERVER_VERSION} once into ${CACHE_BIN} (minutes on 2 cores)...`);
  mkdirSync(CACHE_BIN, { recursive: true });
  const started = Date.now();
  const result = spawnSync('go', ['install', `${pkg}@${SERVER_VERSION}`], {
    env: { ...process.env, GOBIN: CACHE_BIN },
    stdio: 'inherit',
  });
  if (result.status !== 0 || !existsSync(path)) throw new Error(`go install ${pkg}@${SERVER_VERSION} failed`);
  log(`Built ${path} in ${Math.round((Date.now() - started) / 1000)} s`);
  return path;
}

/** The server binary (`cmd/server`) and temporal-sql-tool (`cmd/tools/sql`). */
export function serverBinaries(log: (msg: string) => void = console.error): { server: string; sqlTool: string } {
  return {
    server: find(
      `${MODULE}/cmd/server`,
      { env: 'TEMPORAL_SERVER_PATH', pathName: 'temporal-server', cached: 'server' },
      log,
    ),
    sqlTool: find(
      `${MODULE}/cmd/tools/sql`,
      { env: 'TEMPORAL_SQL_TOOL_PATH', pathName: 'temporal-sql-tool', cached: 'sql' },
      log,
    ),
  };
}

/** The versioned PostgreSQL schema shipped in the server module (downloaded into the module cache). */
function schemaDir(kind: 'temporal' | 'visibility'): string {
  const modcache = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim();
  const dir = join(modcache, `${MODULE}@${SERVER_VERSION}`, 'schema', 'postgresql', 'v12', kind, 'versioned');
  if (!existsSync(dir))
    spawnSync('go', ['mod', 'download', `${MODULE}@${SERVER_VERSION}`], { stdio: 'inherit', cwd: '/tmp' });
  if (!existsSync(dir)) throw new Error(`no schema at ${dir}`);
  return dir;
}

export type ServerDatabase = {
  host: string;
  port: number;
  user: string;
  password: string;
  main: string;
  visibility: string;
};

/** Creates both databases if missing and brings their schema to this server version (idempotent). */
export function setupSchema(sqlTool: string, db: ServerDatabase, log: (msg: string) => void = console.error): void {
  for (const [name, kind] of [
    [db.main, 'temporal'],
    [db.visibility, 'visibility'],
  ] as const) {
    const base = ['--plugin', 'postgres12', '--ep', db.host, '-p', String(db.port), '-u', db.user, '--db', name];
    const run = (args: string[], allowFailure = false) => {
      // The password goes by SQL_PASSWORD, not argv (where ps would show it).
      const r = spawnSync(sqlTool, [...base, ...args], {
        encoding: 'utf8',
        env: { ...process.env, SQL_PASSWORD: db.password },
      });
      if (r.status !== 0 && !allowFailure)
        throw new Error(`temporal-sql-tool ${args[0]} on ${name}: ${r.stderr || r.stdout}`);
      return r;
    };
    run(['create-database'], true); // fails harmlessly when it exists
    // setup-schema -v 0.0 makes the version table once; update-schema then applies what is missing.
    const versioned = run(['update-schema', '-d', schemaDir(kind)], true);
    if (versioned.status !== 0) {
      run(['setup-schema', '-v', '0.0']);
      run(['update-schema', '-d', schemaDir(kind)]);
    }
    log(`Temporal ${kind} schema ready in database ${name}`);
  }
}

export type TemporalServer = { address: string; child: ChildProcess; stop(): Promise<void> };

/**
 * Starts the server with ops/temporal/production.yaml; resolves once the frontend accepts connections.
 * onSpawn gets the process at once, so a caller stopped meanwhile can end it; a failed start ends it here.
 */
export async function startTemporalServer(
  server: string,
  db: ServerDatabase,
  opts: {
    port: number;
    portBase: number;
    metricsPort: number;
    onSpawn?: (child: ChildProcess) => void;
    /** Where its log goes (default: ours); the soak sends it to a file. */
    stdio?: StdioOptions;
  },
): Promise<TemporalServer> {
  const child = spawn(
    server,
    ['--root', root, '--config', 'ops/temporal', '--env', 'production', '--allow-no-auth', 'start'],
    {
      cwd: root,
      env: {
        ...process.env,
        TEMPORAL_DB_HOST: db.host,
        TEMPORAL_DB_PORT: String(db.port),
        TEMPORAL_DB_USER: db.user,
        TEMPORAL_DB_PASSWORD: db.password,
        TEMPORAL_DB: db.main,
        TEMPORAL_VISIBILITY_DB: db.visibility,
        TEMPORAL_PORT: String(opts.port),
        TEMPORAL_PORT_BASE: String(opts.portBase),
        TEMPORAL_SERVER_METRICS_PORT: String(opts.metricsPort),
      },
      stdio: opts.stdio ?? ['ignore', 'inherit', 'inherit'],
    },
  );
  opts.onSpawn?.(child);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    await Promise.race([
      waitForPort(opts.port, '127.0.0.1', 120_000),
      exited.then(() => Promise.reject(new Error('the Temporal server exited at start'))),
    ]);
  } catch (err) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    throw err;
  }
  return {
    address: `127.0.0.1:${opts.port}`,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

// `npm run temporal:server` prints the server's path (building it if needed).
if (process.argv[1]?.endsWith('temporal-server.ts') && process.argv.includes('--print-path')) {
  const { server, sqlTool } = serverBinaries();
  console.error(`temporal-sql-tool: ${sqlTool}`);
  console.log(server);
}
