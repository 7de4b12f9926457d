import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { withDatabaseRefusals } from '../../activities/database-refusals.js';
import { initORM, type Orm } from '../../src/db/orm.js';
import { sql } from '../../src/db/sql.js';
import { DATABASE_REFUSED } from '../../src/temporal/contracts/durable-steps.js';

/** Real statements against the real database: what the driver throws is what activities see. */
describe('database refusals reaching an activity', () => {
  let orm: Orm;
  before(async () => {
    orm = await initORM(process.env.DATABASE_URL!);
    await sql(
      orm.em.fork(),
      `create table if not exists refusal_probe (id int primary key, name varchar(5) not null, amount numeric(4,2))`,
    );
  });
  after(async () => {
    await sql(orm.em.fork(), `drop table if exists refusal_probe`);
    await orm.close();
  });

  const run = (statement: string, params: unknown[] = []) =>
    withDatabaseRefusals({ probe: async () => sql(orm.em.fork(), statement, params) }).probe();

  for (const [what, statement, params, state] of [
    [
      'a string too long for its column (22001)',
      `insert into refusal_probe (id, name) values (?, ?)`,
      [1, 'secret-value-too-long'],
      '22001',
    ],
    [
      'a number out of its column range (22003)',
      `insert into refusal_probe (id, name, amount) values (?, ?, ?)`,
      [2, 'ok', 123456.78],
      '22003',
    ],
    ['a NOT NULL violation (23502)', `insert into refusal_probe (id, name) values (?, ?)`, [3, null], '23502'],
  ] as const) {
    it(`${what} becomes a non-retryable ${DATABASE_REFUSED} failure without the statement or its parameters`, async () => {
      await assert.rejects(run(statement, [...params]), (err: unknown) => {
        assert.ok(err instanceof ApplicationFailure, String(err));
        assert.equal(err.type, DATABASE_REFUSED);
        assert.equal(err.nonRetryable, true);
        assert.match(err.message, new RegExp(`SQLSTATE ${state}`));
        assert.match(err.message, /refusal_probe/);
        assert.doesNotMatch(err.message, /insert into|secret-value|123456/i);
        assert.equal(
          err.cause,
          undefined,
          'the driver error (statement and values) does not travel into workflow history',
        );
        assert.deepEqual((err.details?.[0] as { sqlState: string }).sqlState, state);
        return true;
      });
    });
  }

  it('a duplicate key and a serialization failure stay retryable (a later attempt can succeed)', async () => {
    for (const state of ['23505', '40001', '08006']) {
      await assert.rejects(
        run(`do $$ begin raise exception 'probe' using errcode = '${state}'; end $$`),
        (err: unknown) => {
          assert.ok(!(err instanceof ApplicationFailure), `${state}: ${String(err)}`);
          assert.equal((err as { code?: string }).code, state);
          return true;
        },
      );
    }
  });

  it('other errors pass through untouched', async () => {
    const boom = new Error('not a database error');
    await assert.rejects(
      withDatabaseRefusals({ probe: async () => Promise.reject(boom) }).probe(),
      (err) => err === boom,
    );
    assert.equal(await withDatabaseRefusals({ ok: async (n: number) => n + 1 }).ok(1), 2);
  });
});
