import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { freshDatabase, uniqueName } from '../../helpers/fresh-database.js';
import { createServices } from '../../../src/services.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

/**
 * Found by `npm run soak`: PostgreSQL restarting just after a receiver answered 2xx made the
 * attempt's activity fail while recording it, and its retry POSTed the same delivery again. The
 * database here becomes unreachable for 3 s the moment the receiver is reached (connections refused
 * and every open one ended, as in a restart); it has a database of its own for that.
 */
describe('a delivery answered 2xx while our database is unreachable', () => {
  let api: TestApi;
  let org: TestOrg;
  let admin: pg.Client;
  let dbName: string;
  let stopWorkers: () => Promise<void>;
  /** Closed in after(), so a failed assertion cannot leave one holding the test process open. */
  const receivers: Server[] = [];

  /** A receiver answering as `handler` does, a webhook on it for every event, and its test delivery. */
  async function testDelivery(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
    const receiver: Server = createServer(handler);
    receivers.push(receiver);
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const hook = await api.request('POST', '/webhooks', { key: org.keys.admin, body: { url, events: ['*'] } });
    assert.equal(hook.status, 201);
    const test = await api.request('POST', `/webhooks/${hook.body.data.id}/test`, { key: org.keys.admin });
    return test.body.data.deliveryId as string;
  }

  /** The same, with a receiver that counts its POSTs and answers each 200 with `body`. */
  async function countedDelivery(body: string | Buffer, headers: Record<string, string> = {}) {
    let posts = 0;
    const deliveryId = await testDelivery((req, res) => {
      req.resume();
      req.on('end', () => {
        posts++;
        res.writeHead(200, headers).end(body);
      });
    });
    return { deliveryId, posts: () => posts };
  }

  /** One row, read on a connection of its own (the test's database may have refused the API's). */
  async function oneRow<T extends pg.QueryResultRow>(query: string, params: unknown[]): Promise<T> {
    const db = new pg.Client({ connectionString: api.runtime.config.DATABASE_URL });
    await db.connect();
    try {
      return (await db.query<T>(query, params)).rows[0]!;
    } finally {
      await db.end();
    }
  }

  before(async () => {
    const serverUrl = process.env.DATABASE_URL!;
    dbName = uniqueName('shelf_recording');
    const url = await freshDatabase(serverUrl, dbName);
    const adminUrl = new URL(serverUrl);
    adminUrl.pathname = '/postgres';
    admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    api = await startTestApi({
      DATABASE_URL: url,
      TASK_QUEUE_PREFIX: uniquePrefix('delivery-recording'),
      WEBHOOK_RETRY_SCHEDULE_MS: [1000],
    });
    stopWorkers = (await startTestWorkers(api.runtime, new ScriptedRecognizer(() => []))).stop;
    org = await createTestOrg(api.runtime);
  });
  after(async () => {
    for (const receiver of receivers) {
      receiver.closeAllConnections();
      await new Promise<void>((r) => receiver.close(() => r()));
    }
    await admin.query(`alter database ${dbName} allow_connections true`);
    await stopWorkers();
    await api.close();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  });

  it('is recorded once the database is back, and not POSTed again', async () => {
    const received: string[] = [];
    const deliveryId = await testDelivery((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['x-service-delivery']));
        if (received.length > 1) return void res.writeHead(200).end('ok');
        void (async () => {
          await admin.query(`alter database ${dbName} allow_connections false`);
          await admin.query(
            `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
            [dbName],
          );
          res.writeHead(200).end('ok');
          setTimeout(() => void admin.query(`alter database ${dbName} allow_connections true`), 3000);
        })();
      });
    });

    const workflow = api.runtime.temporal.client.workflow.getHandle(deliveryId);
    const progress = (await workflow.result()) as { status: string; attempts: number };
    assert.equal(progress.status, 'succeeded');
    assert.deepEqual(received, [deliveryId], 'one POST: the answered attempt was not made again');
    const row = await oneRow<{ status: string; attempt_count: number }>(
      `select status, attempt_count from deliveries where id = $1`,
      [deliveryId],
    );
    assert.equal(row.status, 'succeeded');
    assert.equal(row.attempt_count, 1);
  });

  it('a retried attempt of a delivery it already finished answers from the record and does not POST again', async () => {
    // Found by `npm run soak` too: a Temporal server killed just after an attempt recorded its 2xx
    // loses the activity's completion; Temporal runs the activity again, which POSTed again.
    const { deliveryId, posts } = await countedDelivery('ok');
    await api.runtime.temporal.client.workflow.getHandle(deliveryId).result();
    assert.equal(posts(), 1);
    // The attempt that POSTed is not always the first: an attempt that failed before reaching the
    // receiver (a pooled connection the test above ended, on a loaded machine) counts too.
    const row = await oneRow<{ attempt_count: number }>(`select attempt_count from deliveries where id = $1`, [
      deliveryId,
    ]);

    // What the activity's retry runs: the same call, on a delivery its first run finished.
    const { config } = api.runtime;
    const services = createServices(api.runtime.orm.em.fork(), { config, logger: api.runtime.logger });
    const again = await services.deliveries.attempt(deliveryId, 1000, {
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: config.ALLOW_PRIVATE_NETWORK_FETCH,
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    });
    assert.deepEqual(again, { outcome: 'succeeded', attempt: row.attempt_count, status: 200 });
    assert.equal(posts(), 1, 'not POSTed again');
  });

  it('a 2xx whose body is slow to come is recorded as delivered at once, not POSTed again', async () => {
    // A receiver's 2xx is its acknowledgement: waiting for the body that follows kept the delivery
    // unrecorded (a worker killed then sends it again), and a body that never ended failed the
    // attempt at the timeout, so that the acknowledged delivery was sent again.
    let posts = 0;
    const deliveryId = await testDelivery((req, res) => {
      req.resume();
      req.on('end', () => {
        posts++;
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('received, and this body never ends');
      });
    });
    const progress = (await api.runtime.temporal.client.workflow.getHandle(deliveryId).result()) as {
      status: string;
      attempts: number;
    };
    assert.equal(progress.status, 'succeeded');
    assert.equal(progress.attempts, 1);
    assert.equal(posts, 1, 'one POST');
    const attempt = await oneRow<{ status_code: number; succeeded: boolean; error: string | null }>(
      `select status_code, succeeded, error from delivery_attempts where delivery_id = $1`,
      [deliveryId],
    );
    assert.deepEqual(attempt, { status_code: 200, succeeded: true, error: null });
  });

  it('a 2xx whose body holds a NUL byte (PostgreSQL text refuses it) is recorded as delivered, the byte left out of the excerpt', async () => {
    // The excerpt is the receiver's bytes as text; a binary answer (a gzip body, a framework's
    // debug page) made its insert fail for good: delivered, yet recorded pending, its workflow stuck.
    const { deliveryId, posts } = await countedDelivery(Buffer.from('ok\u0000bin\u0000', 'utf8'), {
      'content-type': 'application/octet-stream',
    });
    const progress = (await api.runtime.temporal.client.workflow.getHandle(deliveryId).result()) as { status: string };
    assert.equal(progress.status, 'succeeded');
    assert.equal(posts(), 1);
    const attempt = await oneRow<{ response_excerpt: string; succeeded: boolean }>(
      `select response_excerpt, succeeded from delivery_attempts where delivery_id = $1`,
      [deliveryId],
    );
    assert.equal(attempt.succeeded, true);
    assert.equal(attempt.response_excerpt, 'okbin');
  });
});
