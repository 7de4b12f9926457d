import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { freshDatabase, uniqueName } from '../../helpers/fresh-database.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth } from '../../helpers/image-host.js';
import { product, ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { describeWhenStarted } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

/**
 * Found by `npm run soak` (seed 4, a PostgreSQL restart): our database unreachable while the image
 * was being fetched spent the fetch's four attempts (about 7 s, the image host's budget) and failed
 * a served photo with IMAGE_UNREACHABLE, quoting the server's "not yet accepting connections". Here
 * the database becomes unreachable for 10 s the moment the image host is reached (connections
 * refused and every open one ended, as in a restart); it has a database of its own for that.
 */
describe('our database unreachable while an image is fetched', () => {
  let api: TestApi;
  let org: TestOrg;
  let admin: pg.Client;
  let dbName: string;
  let host: Server;
  let stopWorkers: () => Promise<void>;
  let requests = 0;

  before(async () => {
    const serverUrl = process.env.DATABASE_URL!;
    dbName = uniqueName('shelf_fetch_restart');
    const url = await freshDatabase(serverUrl, dbName);
    const adminUrl = new URL(serverUrl);
    adminUrl.pathname = '/postgres';
    admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    api = await startTestApi({ DATABASE_URL: url, TASK_QUEUE_PREFIX: uniquePrefix('fetch-restart') });
    const recognizer = new ScriptedRecognizer(() => [product({ brand: 'Fizz', description: 'Cola 330ml' })]);
    stopWorkers = (await startTestWorkers(api.runtime, recognizer)).stop;
    org = await createTestOrg(api.runtime, { credits: 5 });
    const png = await pngOfWidth(200, 120);
    host = createServer((req, res) => {
      requests++;
      if (requests > 1) return void res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      void (async () => {
        await admin.query(`alter database ${dbName} allow_connections false`);
        await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
          [dbName],
        );
        res.writeHead(200, { 'content-type': 'image/png' }).end(png);
        setTimeout(() => void admin.query(`alter database ${dbName} allow_connections true`), 10_000);
      })();
    });
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    host.closeAllConnections();
    await new Promise<void>((r) => host.close(() => r()));
    await admin.query(`alter database ${dbName} allow_connections true`);
    await stopWorkers();
    await api.close();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  });

  it('waits for it and completes the analysis: the outage is not the image host failing', async () => {
    const imageUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}/shelf.png`;
    const res = await api.request('POST', '/analyses', { key: org.keys.write, body: { imageUrl } });
    assert.equal(res.status, 202, res.text);
    const analysisId = res.body.data.id as string;
    // The 202 does not wait for the workflow start (the relay may make it): its result is asked for
    // once the workflow exists.
    await describeWhenStarted(api.runtime.temporal.client, analysisId, 30_000);
    await api.runtime.temporal.client.workflow.getHandle(analysisId).result();
    const db = new pg.Client({ connectionString: api.runtime.config.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ status: string; error_code: string | null; error_message: string | null }>(
        `select status, error_code, error_message from analyses where id = $1`,
        [analysisId],
      );
      assert.deepEqual(rows[0], { status: 'completed', error_code: null, error_message: null });
    } finally {
      await db.end();
    }
  });
});
