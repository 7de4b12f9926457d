import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Config } from '../src/config.js';
import type { Orm } from '../src/db/orm.js';
import { AppError } from '../src/lib/errors.js';
import type { TaskDetail, UpdateTaskInput } from '../src/modules/tasks/task.schemas.js';
import { createServices } from '../src/services.js';

export type TaskView = TaskDetail;
export type TaskChange = UpdateTaskInput & { actor?: string | null };

export type TaskActivityDeps = { orm: Orm; config: Config; client: Client };

/** Our typed refusals cross into the workflow as non-retryable failures carrying code and details. */
async function typed<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && err.status < 500) {
      throw ApplicationFailure.create({ type: err.code, message: err.message, details: err.details ? [err.details] : [], nonRetryable: true });
    }
    throw err;
  }
}

export function createTaskActivities({ orm, config, client }: TaskActivityDeps) {
  const services = () => createServices(orm.em.fork(), { config, temporal: client });
  return {
    async applyTaskChange({ taskId, change }: { taskId: string; change: TaskChange }) {
      const { actor, ...fields } = change;
      return typed(() => services().tasks.applyChange(taskId, fields, actor ?? null));
    },
    async startTaskFromAnalysis({ taskId }: { taskId: string }) {
      return services().tasks.startFromAnalysis(taskId);
    },
    async completeTaskFromAnalysis({ taskId, analysisId }: { taskId: string; analysisId: string }) {
      return services().tasks.completeFromAnalysis(taskId, analysisId);
    },
    async raiseTaskOverdue({ taskId }: { taskId: string }) {
      return services().tasks.raiseOverdue(taskId);
    },
    async readTask({ taskId }: { taskId: string }): Promise<TaskView | null> {
      return services().tasks.view(taskId);
    },
  };
}

export type TaskActivities = ReturnType<typeof createTaskActivities>;
