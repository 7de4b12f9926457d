// Applies pending migrations to DATABASE_URL and exits.
import { configOrExit } from '../src/config.js';
import { initORM, migrate } from '../src/db/orm.js';

const orm = await initORM(configOrExit().DATABASE_URL);
try {
  const applied = await migrate(orm);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await orm.close();
}
