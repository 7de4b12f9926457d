import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { initORM, migrate } from '../../src/db/orm.js';

/**
 * A name of a test file's own (a database on the shared server, a directory under .data/test): `prefix`
 * and eight random hex digits. Not the process id: test files share processes, and a file naming its
 * process's id gets a process of its own (scripts/lib/test-processes.ts), some 2 s of CPU it need not.
 */
export const uniqueName = (prefix: string) => `${prefix}_${randomBytes(4).toString('hex')}`;

/** `url` with its database replaced by `name` (same server, user and options). */
const withDatabase = (url: string, name: string): string => {
  const other = new URL(url);
  other.pathname = `/${name}`;
  return other.toString();
};

/** The database `url` names. */
const databaseOf = (url: string): string => new URL(url).pathname.slice(1);

/** `use` with a client on the `postgres` database of the server `serverUrl` points at; closed after. */
async function onAdmin(serverUrl: string, use: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    await use(client);
  } finally {
    await client.end();
  }
}

/**
 * Drops and recreates `name` on the server of `serverUrl`, applies every migration, returns its URL.
 * Under `npm test` (TEST_TEMPLATE_DATABASE, a database on the same server that the runner migrated
 * and nothing connects to) it copies that one instead: the same schema and rows, without running the
 * migrations again in every test file that wants a database of its own.
 */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  const template = sameServer(serverUrl, process.env.TEST_TEMPLATE_DATABASE);
  await onAdmin(serverUrl, async (client) => {
    await client.query(`drop database if exists ${name} with (force)`);
    await client.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  });
  const url = withDatabase(serverUrl, name);
  if (template) return url;
  const orm = await initORM(url);
  await migrate(orm);
  await orm.close();
  return url;
}

/** The name of the database `templateUrl` points at, if it is on the server of `serverUrl`. */
function sameServer(serverUrl: string, templateUrl: string | undefined): string | undefined {
  if (!templateUrl) return undefined;
  const [server, template] = [new URL(serverUrl), new URL(templateUrl)];
  return server.host === template.host && server.username === template.username ? databaseOf(templateUrl) : undefined;
}

/** A copy of the migrated database `url`, `<name>_template`, for freshDatabase to clone; its URL. */
export async function templateOf(url: string): Promise<string> {
  const name = `${databaseOf(url)}_template`;
  await onAdmin(url, async (client) => {
    await client.query(`drop database if exists ${name} with (force)`);
    await client.query(`create database ${name} template ${databaseOf(url)}`);
  });
  return withDatabase(url, name);
}

/** Drops the database `url` names (one freshDatabase made), closing whatever is still connected to it. */
export async function dropDatabase(url: string): Promise<void> {
  await onAdmin(url, (client) => client.query(`drop database if exists ${databaseOf(url)} with (force)`));
}
