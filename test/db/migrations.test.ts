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
});
