import pg from 'pg';
import { initORM, migrate } from '../../src/db/orm.js';

/** Drops and recreates `name` on the server of `serverUrl`, applies every migration, returns its URL. */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`drop database if exists ${name} with (force)`);
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const orm = await initORM(url.toString());
  await migrate(orm);
  await orm.close();
  return url.toString();
}
