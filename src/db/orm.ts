import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from './orm-config.js';

export type Orm = MikroORM;

export async function initORM(databaseUrl: string, poolMax?: number): Promise<Orm> {
  return MikroORM.init(ormConfig(databaseUrl, poolMax));
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
