// Writes a migration for the difference between the entities and the database at DATABASE_URL
// (run `npm run migrate` first so the database is at the latest migration).
import { config } from '../src/config.js';
import { initORM } from '../src/db/orm.js';

// A development tool: it reads nothing sealed, so it needs no SECRETS_KEY (config.ts).
process.env.NODE_ENV ||= 'development';
const orm = await initORM(config().DATABASE_URL);
try {
  const result = await orm.getMigrator().createMigration(undefined, false, process.argv.includes('--initial'));
  console.log(result.fileName ? `created ${result.fileName}` : 'no changes: entities match the migrations');
} finally {
  await orm.close();
}
