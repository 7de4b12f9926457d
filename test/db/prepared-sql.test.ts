import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { initORM, type Orm } from '../../src/db/orm.js';
import { preparedSql, sql } from '../../src/db/sql.js';

describe('preparedSql: the hot statements as named prepared statements', () => {
  let orm: Orm;
  before(async () => {
    orm = await initORM(process.env.DATABASE_URL!);
  });
  after(() => orm.close());

  it('binds each ? in order, and is parsed once per connection then only run', async () => {
    const query = `select ?::int + ?::int as sum, ?::text as word, current_setting('application_name') as app`;
    const runs = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        preparedSql<{ sum: number; word: string }>(orm.em.fork(), query, [i, 1, `w${i}`]),
      ),
    );
    runs.forEach(([row], i) => assert.deepEqual([row!.sum, row!.word], [i + 1, `w${i}`]));
    // Each pooled connection that ran it holds it prepared under one name, with $n placeholders.
    const [held] = await preparedSql<{ name: string; statement: string }>(
      orm.em.fork(),
      `select name, statement from pg_prepared_statements where statement like 'select $1::int + $2::int%'`,
    );
    assert.match(held!.name, /^hot_\d+$/);
    assert.match(held!.statement, /\$3::text/);
  });

  it('runs inside the caller transaction when there is one', async () => {
    await orm.em.fork().transactional(async (em) => {
      await sql(em, `create temporary table prepared_probe (id int) on commit drop`);
      await sql(em, `insert into prepared_probe values (7)`);
      const rows = await preparedSql<{ id: number }>(em, `select id from prepared_probe where id = ?`, [7]);
      assert.deepEqual(rows, [{ id: 7 }]);
    });
  });

  it('inside a transaction, is prepared on its connection too: bytes go as a binary parameter, not as hex in the text', async () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31) % 256));
    await orm.em.fork().transactional(async (em) => {
      await sql(em, `create temporary table prepared_bytes (b bytea) on commit drop`);
      await preparedSql(em, `insert into prepared_bytes (b) values (?) -- in a transaction`, [bytes]);
      // The transaction's own session holds the statement under its name, with its placeholder.
      const held = await sql<{ name: string; statement: string }>(
        em,
        `select name, statement from pg_prepared_statements where statement like '%-- in a transaction'`,
      );
      assert.equal(held.length, 1, 'prepared on the transaction’s connection');
      assert.match(held[0]!.name, /^hot_\d+$/);
      assert.match(held[0]!.statement, /values \(\$1\)/);
      const [row] = await sql<{ b: Buffer }>(em, `select b from prepared_bytes`);
      assert.deepEqual(row!.b, bytes);
    });
  });
});
