import type { Config } from '../src/config.js';
import type { Orm } from '../src/db/orm.js';
import type { Logger } from '../src/lib/logger.js';
import type { TemporalHandle } from '../src/temporal/client.js';

export type ActivityDeps = { orm: Orm; config: Config; temporal: TemporalHandle; logger: Logger };

export function createActivities(_deps: ActivityDeps) {
  return {};
}
