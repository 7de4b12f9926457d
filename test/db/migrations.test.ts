import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { initORM, type Orm } from '../../src/db/orm.js';

describe('migrations', () => {
  let orm: Orm;
  before(async () => {
    orm = await initORM(process.env.DATABASE_URL!);
  });
  after(() => orm.close());

  it('are all applied and match the entities exactly (every schema change is a migration)', async () => {
    assert.deepEqual(await orm.getMigrator().getPendingMigrations(), []);
    const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: false });
    assert.equal(diff.trim(), '', `entities differ from the migrated schema:\n${diff}`);
  });

  it('stores photo bytes without trying to compress them (D246, D375): every bytea column is EXTERNAL', async () => {
    // JPEG, PNG and WebP bytes do not compress; EXTENDED (the default) has pglz try over the whole
    // value on every write. The entities cannot say this, so the schema diff above does not see it.
    const columns = await orm.em.getConnection().execute<{ column: string; storage: string }[]>(
      `select c.relname || '.' || a.attname as column, a.attstorage as storage
           from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = current_schema() and c.relkind = 'r' and a.atttypid = 'bytea'::regtype
            and a.attnum > 0 and not a.attisdropped
          order by 1`,
    );
    assert.deepEqual(columns, [
      { column: 'analysis_images.bytes', storage: 'e' },
      { column: 'image_blobs.bytes', storage: 'e' },
    ]);
  });
});
