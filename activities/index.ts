import { RequestContext } from '@mikro-orm/core';
import type { Client } from '@temporalio/client';
import type { Config } from '../src/config.js';
import type { Orm } from '../src/db/orm.js';
import type { Logger } from '../src/lib/logger.js';
import type { Recognizer } from '../src/modules/recognition/recognizer.js';
import { createCommands, type Commands } from '../src/commands.js';
import { createServices, type Services } from '../src/services.js';
import type { AlertActivities } from '../src/temporal/contracts/alert.js';
import type { AnalysisActivities } from '../src/temporal/contracts/analysis.js';
import type { DeliveryActivities } from '../src/temporal/contracts/delivery.js';
import type { TaskActivities } from '../src/temporal/contracts/task.js';
import type { PlanPeriodActivities } from '../src/temporal/contracts/plan-period.js';
import type { TaskQueues } from '../src/temporal/contracts/task-queues.js';
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
  /**
   * The process's services and commands (workers/run-worker.ts passes its runtime's: one graph a process);
   * built here on `orm` when absent (a benchmark whose activities start workflows with a client of their own).
   */
  services?: Services;
  commands?: Commands;
};

export type Activities = AnalysisActivities &
  DeliveryActivities &
  TaskActivities &
  AlertActivities &
  PlanPeriodActivities;

type ActivityFunction = (...args: any[]) => Promise<unknown>;

/**
 * The activities each task queue's worker registers: those the workflows started on that queue call,
 * as activities or local activities (the recognition queue runs the recognition passes only).
 * test/workers/queue-activities.test.ts reads each workflow for the activities it names.
 */
export const QUEUE_ACTIVITIES = {
  /** Analysis and batch workflows: the fetch, the tail, a batch's members, their events and task. */
  analyses: [
    'fetchImage',
    'finalizeAnalysis',
    'failAnalysis',
    'storePreview',
    'listBatchAnalyses',
    'queueBatchForTurn',
    'dispatchEvents',
    'deliverEvents',
    'completeTaskFromAnalysis',
  ],
  recognition: ['recognizeImage'],
  /** Task, alert-snooze and plan-period workflows. */
  tasks: [
    'readTask',
    'applyTaskChange',
    'startTaskFromAnalysis',
    'completeTaskFromAnalysis',
    'raiseTaskOverdue',
    'dispatchEvents',
    'endAlertSnooze',
    'currentPlanPeriod',
    'renewPlanPeriod',
  ],
  /** Webhook delivery workflows. */
  deliveries: ['attemptDelivery'],
} as const satisfies Record<keyof TaskQueues, readonly (keyof Activities)[]>;

/** The activities `queue`'s worker registers (QUEUE_ACTIVITIES), out of every activity built. */
export function queueActivities(activities: Activities, queue: keyof TaskQueues): Partial<Activities> {
  return Object.fromEntries(QUEUE_ACTIVITIES[queue].map((name) => [name, activities[name]]));
}

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
  const services = deps.services ?? createServices(deps.orm.em, { config: deps.config, logger: deps.logger });
  const commands =
    deps.commands ??
    createCommands(services, {
      client: deps.client,
      eagerStarts: deps.eagerStarts,
      config: deps.config,
      logger: deps.logger,
    });
  const activities: Activities = {
    ...createAnalysisActivities({ services, commands, config: deps.config, recognizer: deps.recognizer }),
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
