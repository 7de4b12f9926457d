import { MikroORM } from '@mikro-orm/postgresql';
import { secretBox } from '../lib/secrets/index.js';
import { ormConfig, type ConnectionBounds } from './orm-config.js';
import { sealStoredSecrets } from './seal-secrets.js';

export type Orm = MikroORM;

export async function initORM(databaseUrl: string, poolMax?: number, bounds?: ConnectionBounds): Promise<Orm> {
  return MikroORM.init(ormConfig(databaseUrl, poolMax, bounds));
}

/**
 * Applies pending migrations, then seals any stored secret still in clear or under an old key
 * (a data step that needs SECRETS_KEY, so it cannot live in a SQL migration); returns the names applied.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  await sealStoredSecrets(orm.em.fork(), secretBox);
  return applied.map((m) => m.name);
}
