import { defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { fileURLToPath } from 'node:url';
import { AfterCommitSubscriber } from './after-commit.js';
import { entities } from './entities.js';

const migrationsPath = fileURLToPath(new URL('../../migrations', import.meta.url));

/**
 * What a long-running process (API, worker) adds: a bound on the wait for a connection and on
 * opening one, so that while PostgreSQL is down, refusing, or accepting connections it never answers,
 * a request fails at once (the API answers 503) instead of hanging; and no check that the database
 * exists at start, so the API starts (and answers 503, /health/ready unready) while PostgreSQL is
 * down, and serves once it is back. Scripts (migrations, the CLI) keep the ORM's defaults.
 */
export type ConnectionBounds = { acquireTimeoutMs: number; connectTimeoutMs: number };

export function ormConfig(clientUrl: string, poolMax = 10, bounds?: ConnectionBounds) {
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
    ...(bounds
      ? {
          ensureDatabase: false,
          // knex's wait for a pooled connection (default 60 s), and pg's for opening one (default: none).
          driverOptions: {
            acquireConnectionTimeout: bounds.acquireTimeoutMs,
            connection: { connectionTimeoutMillis: bounds.connectTimeoutMs },
          },
        }
      : {}),
    // Entities are plain schemas; nothing to reflect.
    discovery: { warnWhenNoEntities: true },
    forceUtcTimezone: true,
    debug: false,
    allowGlobalContext: false,
    subscribers: [new AfterCommitSubscriber()],
  });
}
