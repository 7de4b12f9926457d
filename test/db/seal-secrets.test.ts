import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dropDatabase, freshDatabase, uniqueName } from '../helpers/fresh-database.js';
import { initORM } from '../../src/db/orm.js';
import { createServices } from '../../src/services.js';
import { startApiProcess } from '../helpers/api-process.js';
import { nodeEntry } from '../helpers/node-entry.js';

const root = resolve(import.meta.dirname, '../..');
const newKey = () => randomBytes(32).toString('hex');

/** `npm run migrate` as an operator runs it, on `url` with `secretsKey`; fails the test unless it succeeds. */
function migrate(url: string, secretsKey: string): Promise<void> {
  return new Promise((done, fail) =>
    execFile(
      process.execPath,
      nodeEntry('scripts/migrate.ts'),
      { cwd: root, env: { ...process.env, DATABASE_URL: url, SECRETS_KEY: secretsKey, LOG_LEVEL: 'silent' } },
      (err, _out, stderr) => (err ? fail(new Error(`migrate with ${secretsKey.length} key chars: ${stderr}`)) : done()),
    ),
  );
}

describe('rotating SECRETS_KEY: migrate re-seals the stored idempotent answers too', () => {
  let url: string;
  let adminKey: string;
  let api: { child: ChildProcess; base: string } | undefined;

  /** An API process on the test's own database under `secretsKey` (the one before it stopped). */
  async function apiUnder(secretsKey: string): Promise<string> {
    await stopApi();
    api = await startApiProcess({ DATABASE_URL: url, SECRETS_KEY: secretsKey });
    return api.base;
  }
  async function stopApi(): Promise<void> {
    if (!api) return;
    const exited = once(api.child, 'exit');
    api.child.kill('SIGTERM');
    await exited;
    api = undefined;
  }
  /** POST /api-keys (its answer holds the new key's secret) under an Idempotency-Key. */
  async function createKey(base: string, idempotencyKey: string) {
    const res = await fetch(`${base}/api/v1/api-keys`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${adminKey}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify({ role: 'read', name: `key for ${idempotencyKey}` }),
    });
    return { status: res.status, replayed: res.headers.get('x-idempotent-replayed'), body: await res.json() };
  }

  before(async () => {
    // A database of its own: migrate under other keys re-seals (or refuses) every row of the one it runs on.
    url = await freshDatabase(process.env.DATABASE_URL!, uniqueName('shelf_test_reseal'));
    const orm = await initORM(url);
    try {
      const s = createServices(orm.em.fork());
      const org = await s.organisations.create({ name: 'Key rotation', plan: 'growth', credits: 10 });
      adminKey = (await s.apiKeys.create(org.id, 'admin', 'admin')).secret;
    } finally {
      await orm.close();
    }
  });
  after(async () => {
    await stopApi();
    if (url) await dropDatabase(url);
  });

  it('an answer stored under K1 replays under "K2,K1" after migrate, then under "K2" alone (not 500)', async () => {
    const [k1, k2] = [newKey(), newKey()];
    const first = await createKey(await apiUnder(k1), 'rotation-1');
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.match(first.body.data.key, /^svc_live_/);

    await stopApi();
    await migrate(url, `${k2},${k1}`);
    const during = await createKey(await apiUnder(`${k2},${k1}`), 'rotation-1');
    assert.equal(during.status, 201, JSON.stringify(during.body));
    assert.equal(during.replayed, 'true');

    // The old key dropped: the answer was re-sealed under K2, so the retry still replays it.
    const afterwards = await createKey(await apiUnder(k2), 'rotation-1');
    assert.equal(afterwards.status, 201, JSON.stringify(afterwards.body));
    assert.equal(afterwards.replayed, 'true');
    assert.deepEqual(afterwards.body, first.body, 'the same key, secret included, as the first answer');
  });

  it('an answer no configured key opens is dropped by migrate: its retry is a new request, not a 500', async () => {
    const [k3, k4] = [newKey(), newKey()];
    const first = await createKey(await apiUnder(k3), 'rotation-2');
    assert.equal(first.status, 201, JSON.stringify(first.body));

    // K3 dropped without a migrate under "K4,K3" first: nothing can open the answer any more.
    await stopApi();
    await migrate(url, k4);
    const retry = await createKey(await apiUnder(k4), 'rotation-2');
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal(retry.replayed, null, 'a new request');
    assert.notEqual(retry.body.data.id, first.body.data.id);
  });
});
