import pg from 'pg';
import { initORM, migrate } from '../../src/db/orm.js';

/** `use` with a client on the `postgres` database of the server `serverUrl` points at; closed after. */
async function onAdmin(serverUrl: string, use: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await use(client);
  } finally {
    await client.end();
  }
}

/** Drops and recreates `name` on the server of `serverUrl`, applies every migration, returns its URL. */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  await onAdmin(serverUrl, async (client) => {
    await client.query(`drop database if exists ${name} with (force)`);
    await client.query(`create database ${name}`);
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const orm = await initORM(url.toString());
  await migrate(orm);
  await orm.close();
  return url.toString();
}

/** Drops the database `url` names (one freshDatabase made), closing whatever is still connected to it. */
export async function dropDatabase(url: string): Promise<void> {
  await onAdmin(url, (client) =>
    client.query(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`),
  );
}
