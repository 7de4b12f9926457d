import type { Client } from '@temporalio/client';
import type { Config } from '../src/config.js';
import type { Orm } from '../src/db/orm.js';
import type { Recognizer } from '../src/modules/recognition/recognizer.js';
import { createAnalysisActivities } from './analysis.activities.js';
import { createDeliveryActivities } from './delivery.activities.js';
import { createTaskActivities } from './task.activities.js';
import { createAlertActivities } from './alert.activities.js';
import { withDatabaseRefusals } from './database-refusals.js';

export type ActivityDeps = { orm: Orm; config: Config; recognizer: () => Promise<Recognizer>; client: Client };

/**
 * Every activity the workers register, built from their dependencies. A write the database refuses
 * fails its activity for good (DATABASE_REFUSED), in every activity, so none retries it without end.
 */
export function createActivities(deps: ActivityDeps) {
  return withDatabaseRefusals({
    ...createAnalysisActivities(deps),
    ...createDeliveryActivities(deps),
    ...createTaskActivities(deps),
    ...createAlertActivities(deps),
  });
}

export type Activities = ReturnType<typeof createActivities>;
