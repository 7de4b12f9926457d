import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { InvalidApiKeyError } from '../../../src/lib/errors.js';
import { generateApiKey, hashApiKey } from '../../../src/modules/api-keys/api-key-secret.js';
import { KeyGate, takeGroup, type Take } from '../../../src/modules/api-keys/key-gate.js';
import { RateLimiter } from '../../../src/modules/rate-limits/rate-limiter.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { dropDatabase, freshDatabase, uniqueName } from '../../helpers/fresh-database.js';
import { initORM } from '../../../src/db/orm.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg } from '../../helpers/fixtures.js';
import { waitFor } from '../../helpers/wait.js';

describe('KeyGate with the PostgreSQL store: takes that arrive together share a statement', () => {
  let api: TestApi;

  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('takes for two databases in one process never share a statement', async () => {
    // A second ORM on another database (tests hold several; a process could), with its own key.
    const url = await freshDatabase(process.env.DATABASE_URL!, uniqueName('shelf_test_gate'));
    const other = await initORM(url);
    try {
      const { createServices } = await import('../../../src/services.js');
      const s = createServices(other.em.fork());
      const org = await s.organisations.create({ name: 'Other database', plan: 'free', credits: 0 });
      const otherKey = (await s.apiKeys.create(org.id, 'read', 'other')).secret;
      const here = await createTestOrg(api.runtime, { plan: 'free' });
      // Each database's gate, as each ORM's services build one (its takes grouped by the gate).
      const gateOn = (orm: { em: { fork(): EntityManager } }) => {
        const em = orm.em.fork();
        return new KeyGate(em, new RateLimiter(em));
      };
      const gateHere = gateOn(api.runtime.orm);
      const gateThere = gateOn(other);
      // Interleaved in one tick: each database's key must be found in its own database.
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 2 === 0
            ? gateHere.enter(`Bearer ${here.keys.read}`, 'reads', 1)
            : gateThere.enter(`Bearer ${otherKey}`, 'reads', 1),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.owner.organisationId),
        Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? here.id : org.id)),
      );
    } finally {
      await other.close();
      await dropDatabase(url);
    }
  });

  it('each request is answered as if the takes ran one after the other, in arrival order', async () => {
    // Free plan: 60 reads a minute. Every call is made in the same tick: the first goes alone, the
    // others wait for it and go together in one statement (key-gate.ts, TAKE_MANY).
    const a = await createTestOrg(api.runtime, { plan: 'free' });
    const b = await createTestOrg(api.runtime, { plan: 'free' });
    const unknown = `Bearer ${generateApiKey()}`;
    // The process's one gate (src/services.ts builds one): its takes are grouped.
    const em = api.runtime.orm.em.fork();
    const shared = new KeyGate(em, new RateLimiter(em));
    const gate = () => shared;
    const calls: { header: string; weight: number }[] = [
      ...Array.from({ length: 10 }, () => ({ header: `Bearer ${a.keys.read}`, weight: 3 })),
      { header: unknown, weight: 1 },
      { header: `Bearer ${b.keys.read}`, weight: 1 },
      ...Array.from({ length: 11 }, () => ({ header: `Bearer ${a.keys.read}`, weight: 3 })),
    ];
    const results = await Promise.all(
      calls.map(({ header, weight }) =>
        gate()
          .enter(header, 'reads', weight)
          .catch((err: unknown) => err),
      ),
    );
    const of = (i: number) => results[i] as Awaited<ReturnType<KeyGate['enter']>>;

    // Key A: 21 takes of 3 against 60: the first 20, in order, leave 57, 54, ... 0; the 21st is refused.
    const aPositions = calls.flatMap((c, i) => (c.header === `Bearer ${a.keys.read}` ? [i] : []));
    assert.deepEqual(
      aPositions.map((i) => [of(i).rate.allowed, of(i).rate.remaining]),
      [...Array.from({ length: 20 }, (_, k) => [true, 57 - 3 * k]), [false, 0]],
    );
    assert.ok(aPositions.every((i) => of(i).owner.organisationId === a.id));
    // The unknown key fails alone; key B's take in the same statement is its own.
    assert.ok(results[10] instanceof InvalidApiKeyError, String(results[10]));
    assert.equal(of(11).owner.organisationId, b.id);
    assert.deepEqual([of(11).rate.allowed, of(11).rate.remaining, of(11).rate.limit], [true, 59, 60]);

    // The window holds exactly what was allowed: one more read of key A is refused, key B has 59 left.
    const next = await gate().enter(`Bearer ${a.keys.read}`, 'reads', 1);
    assert.equal(next.rate.allowed, false);
    assert.equal((await gate().enter(`Bearer ${b.keys.read}`, 'reads', 1)).rate.remaining, 58);
  });

  it('two grouped takes over the same buckets in opposite orders (two processes) never deadlock', async () => {
    // Two API processes, each with a group of takes for keys P and Q: one in the order P, Q, the other
    // Q, P. A third transaction holds P's row, so that both statements are under way before either
    // ends: the first waits for P; the second, in arrival order, would lock Q and wait for P behind it.
    // Once P is free the first would lock P and wait for Q: a deadlock, one statement aborted (then its
    // takes are made again alone, so only the statement shows it). In one order for both, the second
    // waits for the first.
    const p = await createTestOrg(api.runtime);
    const q = await createTestOrg(api.runtime);
    const enter = (key: string) => {
      const em = api.runtime.orm.em.fork();
      return new KeyGate(em, new RateLimiter(em)).enter(`Bearer ${key}`, 'reads', 1);
    };
    // Each key's bucket row exists (its first take inserts it).
    const pId = (await enter(p.keys.read)).owner.apiKeyId;
    await enter(q.keys.read);
    const em = () => api.runtime.orm.em.fork();
    const take = (key: string): Take => ({
      em: em(),
      hash: hashApiKey(key),
      category: 'reads',
      weight: 1,
      address: null,
    });

    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`select 1 from rate_limit_windows where bucket = $1 for update`, [`key:${pId}:reads`]);
      // Each group on a connection of its own, as two processes' statements are.
      const first = takeGroup(em(), [take(p.keys.read), take(q.keys.read)]);
      await waitFor('the first group waiting for a row lock', () => lockWaiters(holder, 1));
      const second = takeGroup(em(), [take(q.keys.read), take(p.keys.read)]);
      await waitFor('both groups waiting for a row lock', () => lockWaiters(holder, 2));
      await holder.query('commit');

      const results = await Promise.allSettled([first, second]);
      assert.deepEqual(
        results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'fulfilled')),
        ['fulfilled', 'fulfilled'],
      );
      // Each row answers its own key, and each key's three takes counted one after the other.
      const [a, b] = results.map((r) => (r as PromiseFulfilledResult<Awaited<typeof first>>).value!);
      assert.deepEqual(
        [...a!, ...b!].map((row) => row!.organisation_id),
        [p.id, q.id, q.id, p.id],
      );
      assert.deepEqual([a![0]!.used, b![1]!.used].sort(), [2, 3], "P's");
      assert.deepEqual([a![1]!.used, b![0]!.used].sort(), [2, 3], "Q's");
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
  });
});

/**
 * True once `n` statements of this database wait for a lock: the holder's or each other's. (Not told
 * apart by their text: a prepared statement's first run can show the connection's previous one.)
 */
async function lockWaiters(db: pg.Client, n: number): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
  );
  return rows[0]!.n === n;
}
