import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { dropDatabase, freshDatabase, uniqueName } from '../../helpers/fresh-database.js';
import { initORM } from '../../../src/db/orm.js';
import { createServices } from '../../../src/services.js';
import { startApiProcess } from '../../helpers/api-process.js';
import { request } from '../../helpers/api.js';

/**
 * Issue 15: a read costs no durable write, and a key's lastUsedAt no write per request. Two API
 * processes on a database of their own (so that every write there is theirs), and one key read from
 * hard over both.
 */
describe('what the read path writes under load (key-gate.ts, rate_limit_take, api-key.repository.ts)', () => {
  let url: string;
  let db: pg.Client;
  const processes: ChildProcess[] = [];
  const bases: string[] = [];

  before(async () => {
    url = await freshDatabase(process.env.DATABASE_URL!, uniqueName('shelf_test_stamp'));
    db = new pg.Client({ connectionString: url });
    await db.connect();
    // Fires once per UPDATE statement, even one that changes no row (a stamp the database's own
    // once-a-minute condition turned away still cost a round trip and a statement).
    await db.query(`
      create table stamp_statements (id serial primary key, rows_changed int not null);
      create function count_api_key_updates() returns trigger language plpgsql as $$
        begin insert into stamp_statements (rows_changed) select count(*) from changed; return null; end $$;
      create trigger api_key_updates after update on api_keys referencing new table as changed
        for each statement execute function count_api_key_updates();`);
    for (let i = 0; i < 2; i++) {
      const { child, base } = await startApiProcess({ DATABASE_URL: url });
      processes.push(child);
      bases.push(base);
    }
  });
  after(async () => {
    processes.forEach((p) => p.kill('SIGTERM'));
    await db.end();
    await dropDatabase(url);
  });

  /** A fresh organisation's read key, with a read limit no test here reaches. */
  async function readKey(name: string): Promise<{ key: string; keyId: string }> {
    const orm = await initORM(url);
    try {
      const s = createServices(orm.em.fork());
      const org = await s.organisations.create({
        name,
        plan: 'enterprise',
        credits: 0,
        customLimits: { rateLimits: { analyses: 10, reads: 100_000, writes: 10 }, maxBatchSize: 10 },
      });
      const created = await s.apiKeys.create(org.id, 'read', 'busy key');
      return { key: created.secret, keyId: created.key.id };
    } finally {
      await orm.close();
    }
  }

  /** `n` reads of a page of analyses with `key`, 32 at a time, alternating between the two processes. */
  async function readHard(key: string, n: number) {
    let sent = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (sent < n) {
          const i = sent++;
          statuses.push((await request(bases[i % 2]!, 'GET', '/analyses?limit=50', { key })).status);
        }
      }),
    );
    assert.equal(statuses.length, n);
    assert.ok(
      statuses.every((s) => s === 200),
      `every read answered 200: ${[...new Set(statuses)].join(', ')}`,
    );
  }

  it('1,000 reads with one key over two processes stamp it once: one statement per process, one row written', async () => {
    const { key, keyId } = await readKey('Stamped');
    const before = await db.query<{ statements: number }>(`select count(*)::int as statements from stamp_statements`);
    await readHard(key, 1000);

    const { rows } = await db.query<{ statements: number; changed: number }>(
      `select count(*)::int as statements, coalesce(sum(rows_changed), 0)::int as changed from stamp_statements`,
    );
    assert.deepEqual(
      { statements: rows[0]!.statements - before.rows[0]!.statements, changed: rows[0]!.changed },
      { statements: 2, changed: 1 },
      'one stamp statement per process, one row written',
    );
    const {
      rows: [stamped],
    } = await db.query<{ last_used_at: Date | null }>(`select last_used_at from api_keys where id = $1`, [keyId]);
    assert.ok(stamped?.last_used_at, 'the key is stamped');
  });

  it('1,000 reads write no row of any logged table: the rate-limit takes go to unlogged storage only', async () => {
    const { key } = await readKey('Unlogged');
    // The stamp is the read path's one durable write (once a minute): made before the count starts.
    await readHard(key, 2);
    // Every row version written from here on carries a transaction id at least this one.
    const xidRows = await db.query<{ xid: string }>(`select (pg_current_xact_id()::text::bigint % 4294967296) as xid`);
    const xid = xidRows.rows[0]!.xid;
    await readHard(key, 1000);

    const { rows: tables } = await db.query<{ name: string; persistence: string }>(
      `select c.relname as name, c.relpersistence as persistence from pg_class c
         join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind = 'r' and c.relname <> 'stamp_statements'`,
    );
    const written: Record<string, number> = {};
    for (const t of tables) {
      const counted = await db.query<{ n: number }>(
        `select count(*)::int as n from ${t.name} where xmin::text::bigint >= $1`,
        [xid],
      );
      const n = counted.rows[0]!.n;
      if (n > 0) written[`${t.name} (${t.persistence === 'u' ? 'unlogged' : 'logged'})`] = n;
    }
    // The takes did write (the window's counters are rows too), and only there.
    assert.deepEqual(Object.keys(written), ['rate_limit_windows (unlogged)'], JSON.stringify(written));
  });
});
