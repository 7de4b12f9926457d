import type { Client } from '@temporalio/client';
import type { Config } from '../src/config.js';
import type { Orm } from '../src/db/orm.js';
import type { Recognizer } from '../src/modules/recognition/recognizer.js';
import { createAnalysisActivities } from './analysis.activities.js';
import { createDeliveryActivities } from './delivery.activities.js';
import { createTaskActivities } from './task.activities.js';
import { createAlertActivities } from './alert.activities.js';

export type ActivityDeps = { orm: Orm; config: Config; recognizer: () => Promise<Recognizer>; client: Client };

/** Every activity the workers register, built from their dependencies. */
export function createActivities(deps: ActivityDeps) {
  return { ...createAnalysisActivities(deps), ...createDeliveryActivities(deps), ...createTaskActivities(deps), ...createAlertActivities(deps) };
}

export type Activities = ReturnType<typeof createActivities>;
