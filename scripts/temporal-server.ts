// The real Temporal server (not the dev server): built once from its Go module, with
// temporal-sql-tool for its PostgreSQL schema, both cached beside the CLI in ~/.cache/shelf-service/bin.
// `npm run temporal:server` prints the server binary's path (building it if needed).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CACHE_BIN, onPath, waitForPort } from './temporal.js';

/** Same server version as the one embedded in the CLI we build (its Go build cache is shared). */
export const SERVER_VERSION = 'v1.29.1';
const MODULE = 'go.temporal.io/server';
const root = resolve(import.meta.dirname, '..');

function goInstall(pkg: string, binary: string, log: (msg: string) => void): string {
  const path = join(CACHE_BIN, binary);
  if (existsSync(path)) return path;
  if (!onPath('go')) throw new Error(`${binary} is not in ${CACHE_BIN} and there is no Go toolchain to build it`);
  log(`Building ${pkg}@${SERVER_VERSION} once into ${CACHE_BIN}...`);
  mkdirSync(CACHE_BIN, { recursive: true });
  const result = spawnSync('go', ['install', `${pkg}@${SERVER_VERSION}`], {
    env: { ...process.env, GOBIN: CACHE_BIN },
    stdio: 'inherit',
  });
  if (result.status !== 0 || !existsSync(path)) throw new Error(`go install ${pkg}@${SERVER_VERSION} failed`);
  return path;
}

/** The server binary (`cmd/server`) and temporal-sql-tool (`cmd/tools/sql`), built once. */
export function serverBinaries(log: (msg: string) => void = console.error): { server: string; sqlTool: string } {
  return {
    server: goInstall(`${MODULE}/cmd/server`, 'server', log),
    sqlTool: goInstall(`${MODULE}/cmd/tools/sql`, 'sql', log),
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
    const base = [
      '--plugin',
      'postgres12',
      '--ep',
      db.host,
      '-p',
      String(db.port),
      '-u',
      db.user,
      ...(db.password ? ['--pw', db.password] : []),
      '--db',
      name,
    ];
    const run = (args: string[], allowFailure = false) => {
      const r = spawnSync(sqlTool, [...base, ...args], { encoding: 'utf8' });
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

/** Starts the server with ops/temporal/production.yaml; resolves once the frontend accepts connections. */
export async function startTemporalServer(
  server: string,
  db: ServerDatabase,
  opts: { port: number; portBase: number; metricsPort: number },
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
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await Promise.race([
    waitForPort(opts.port, '127.0.0.1', 120_000),
    exited.then(() => Promise.reject(new Error('the Temporal server exited at start'))),
  ]);
  return {
    address: `127.0.0.1:${opts.port}`,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

if (process.argv.includes('--print-path')) console.log(serverBinaries().server);
