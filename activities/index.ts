import { RequestContext } from '@mikro-orm/core';
import type { Client } from '@temporalio/client';
import type { Config } from '../src/config.js';
import type { Orm } from '../src/db/orm.js';
import type { Logger } from '../src/lib/logger.js';
import type { Recognizer } from '../src/modules/recognition/recognizer.js';
import { createCommands } from '../src/commands.js';
import { createServices } from '../src/services.js';
import type { AlertActivities } from '../src/temporal/contracts/alert.js';
import type { AnalysisActivities } from '../src/temporal/contracts/analysis.js';
import type { DeliveryActivities } from '../src/temporal/contracts/delivery.js';
import type { TaskActivities } from '../src/temporal/contracts/task.js';
import type { PlanPeriodActivities } from '../src/temporal/contracts/plan-period.js';
import { createAlertActivities } from './alert.activities.js';
import { createAnalysisActivities } from './analysis.activities.js';
import { withDatabaseRefusals } from './database-refusals.js';
import { createDeliveryActivities } from './delivery.activities.js';
import { createTaskActivities } from './task.activities.js';
import { createPlanPeriodActivities } from './plan-period.activities.js';

export type ActivityDeps = {
  orm: Orm;
  config: Config;
  recognizer: () => Promise<Recognizer>;
  client: Client;
  /** The client shares its connection with this process's workers (src/temporal/client.ts). */
  eagerStarts?: boolean;
  logger?: Logger;
};

export type Activities = AnalysisActivities &
  DeliveryActivities &
  TaskActivities &
  AlertActivities &
  PlanPeriodActivities;

type ActivityFunction = (...args: any[]) => Promise<unknown>;

/**
 * Each call in its own MikroORM context, as the API does per request: the services are built once
 * on the global entity manager, which resolves to the call's fork (no identity map shared between
 * calls, none leaking across retries).
 */
function withOrmContext<T extends Record<string, ActivityFunction>>(orm: Orm, activities: T): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [
      name,
      (...args: unknown[]) => RequestContext.create(orm.em, () => fn(...args)),
    ]),
  ) as T;
}

/**
 * Every activity the workers register, built once per worker from its dependencies. A write the
 * database refuses fails its activity for good (DATABASE_REFUSED), in every activity, so none
 * retries it without end.
 */
export function createActivities(deps: ActivityDeps): Activities {
  const services = createServices(deps.orm.em, { config: deps.config, logger: deps.logger });
  const commands = createCommands(services, {
    client: deps.client,
    eagerStarts: deps.eagerStarts,
    config: deps.config,
    logger: deps.logger,
  });
  const activities: Activities = {
    ...createAnalysisActivities({ services, config: deps.config, recognizer: deps.recognizer }),
    ...createDeliveryActivities({ services, commands, config: deps.config }),
    ...createTaskActivities({ services }),
    ...createAlertActivities({ services }),
    ...createPlanPeriodActivities({ services }),
  };
  return withOrmContext(
    deps.orm,
    withDatabaseRefusals(activities as unknown as Record<string, ActivityFunction>),
  ) as unknown as Activities;
}
