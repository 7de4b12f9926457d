import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { freshDatabase } from '../../../scripts/lib/fresh-database.js';
import { initORM } from '../../../src/db/orm.js';
import { createServices } from '../../../src/services.js';
import { startApiProcess } from '../../helpers/api-process.js';
import { request } from '../../helpers/api.js';

/**
 * Issue 15: a key's lastUsedAt must not cost a write per request. Two API processes on a database
 * of their own (so that every UPDATE of api_keys there is theirs), a statement-level trigger
 * counting each UPDATE statement that reaches api_keys and the rows it changed, and one key read
 * from hard over both processes.
 */
describe('the last-used stamp of a key under load (key-gate.ts, api-key.repository.ts)', () => {
  let url: string;
  let db: pg.Client;
  const processes: ChildProcess[] = [];
  const bases: string[] = [];

  before(async () => {
    url = await freshDatabase(process.env.DATABASE_URL!, `shelf_test_stamp_${process.pid}`);
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
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`);
    await admin.end();
  });

  it('1,000 reads with one key over two processes stamp it once: one statement per process, one row written', async () => {
    const orm = await initORM(url);
    let key: string;
    let keyId: string;
    try {
      const s = createServices(orm.em.fork());
      const org = await s.organisations.create({
        name: 'Stamped',
        plan: 'enterprise',
        credits: 0,
        customLimits: { rateLimits: { analyses: 10, reads: 100_000, writes: 10 }, maxBatchSize: 10 },
      });
      const created = await s.apiKeys.create(org.id, 'read', 'busy key');
      key = created.secret;
      keyId = created.key.id;
    } finally {
      await orm.close();
    }

    // 32 at a time, alternating between the two processes.
    let sent = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (sent < 1000) {
          const i = sent++;
          statuses.push((await request(bases[i % 2]!, 'GET', '/analyses?limit=50', { key })).status);
        }
      }),
    );
    assert.equal(statuses.length, 1000);
    assert.ok(
      statuses.every((s) => s === 200),
      `every read answered 200: ${[...new Set(statuses)].join(', ')}`,
    );

    const { rows } = await db.query<{ statements: number; changed: number }>(
      `select count(*)::int as statements, coalesce(sum(rows_changed), 0)::int as changed from stamp_statements`,
    );
    assert.deepEqual(rows[0], { statements: 2, changed: 1 }, 'one stamp statement per process, one row written');
    const {
      rows: [stamped],
    } = await db.query<{ last_used_at: Date | null }>(`select last_used_at from api_keys where id = $1`, [keyId]);
    assert.ok(stamped?.last_used_at, 'the key is stamped');
  });
});
