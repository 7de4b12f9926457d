import { defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { fileURLToPath } from 'node:url';
import { AfterCommitSubscriber } from './after-commit.js';
import { entities } from './entities.js';

const migrationsPath = fileURLToPath(new URL('../../migrations', import.meta.url));

export function ormConfig(clientUrl: string, poolMax = 10) {
  return defineConfig({
    clientUrl,
    entities,
    extensions: [Migrator],
    // MikroORM would otherwise look in src/migrations; migrations are TypeScript run through tsx.
    migrations: {
      path: migrationsPath,
      pathTs: migrationsPath,
      glob: '!(*.d).{js,ts}',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
      silent: true,
    },
    pool: { min: 0, max: poolMax },
    // Entities are plain schemas; nothing to reflect.
    discovery: { warnWhenNoEntities: true },
    forceUtcTimezone: true,
    debug: false,
    allowGlobalContext: false,
    subscribers: [new AfterCommitSubscriber()],
  });
}
