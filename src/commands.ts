import type { Client } from '@temporalio/client';
import { config as globalConfig, type Config } from './config.js';
import { createLogger, type Logger } from './lib/logger.js';
import { AlertCommands } from './modules/alerts/alert-commands.js';
import { AnalysisCommands } from './modules/analyses/analysis-commands.js';
import { AnalysisRetryCommands } from './modules/analyses/analysis-retry-commands.js';
import { DispatchPriorities } from './modules/organisations/dispatch-priority.js';
import { PlanPeriodCommands } from './modules/organisations/plan-period-commands.js';
import { TaskCommands } from './modules/tasks/task-commands.js';
import { EventDispatcher } from './modules/webhooks/event-dispatcher.js';
import { WebhookCommands } from './modules/webhooks/webhook-commands.js';
import type { Services } from './services.js';
import { taskQueues } from './temporal/contracts/task-queues.js';

/** `eagerStarts`: the client shares a connection with workers of this process (temporal/client.ts). */
export type CommandContext = { client: Client; eagerStarts?: boolean; config?: Config; logger?: Logger };

/**
 * What starts and messages workflows, built on the domain services and the process's one Temporal
 * client: submissions, task and alert changes, event fan-out and webhook actions, and the relay's sweeps.
 */
export function createCommands(services: Services, context: CommandContext) {
  const config = context.config ?? globalConfig();
  const logger = context.logger ?? createLogger(config.LOG_LEVEL, 'commands');
  const { client } = context;
  const queues = taskQueues(config.TASK_QUEUE_PREFIX);
  // One cache of organisations' plans for every start this process makes (dispatch-priority.ts).
  const priorities = new DispatchPriorities(services.em);
  const events = new EventDispatcher({
    em: services.em,
    deliveries: services.deliveries,
    events: services.events,
    priorities,
    client,
    queues,
    retryDelaysMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
    eagerStarts: context.eagerStarts ?? false,
  });
  const analyses = new AnalysisCommands({
    analyses: services.analyses,
    em: services.em,
    priorities,
    client,
    queues,
    logger,
    heartbeatTimeoutMs: config.RECOGNITION_HEARTBEAT_TIMEOUT_MS,
  });
  return {
    analyses,
    analysisRetries: new AnalysisRetryCommands(services.em, services.credits, analyses, logger),
    tasks: new TaskCommands({
      tasks: services.tasks,
      client,
      queues,
      dispatcher: events,
      logger,
      priorities,
      overdueAfterMs: config.TASK_OVERDUE_AFTER_MS,
      updateWaitMs: config.TASK_UPDATE_WAIT_MS,
    }),
    alerts: new AlertCommands(services.alerts, client, queues),
    webhooks: new WebhookCommands(services.webhooks, events, client),
    planPeriods: new PlanPeriodCommands(services.em, client, queues),
    events,
  };
}

export type Commands = ReturnType<typeof createCommands>;
