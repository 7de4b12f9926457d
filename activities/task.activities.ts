import { ApplicationFailure } from '@temporalio/activity';
import { AppError } from '../src/lib/errors.js';
import type { Services } from '../src/services.js';
import type { TaskActivities } from '../src/temporal/contracts/task.js';

/** Our typed refusals cross into the workflow as non-retryable failures carrying code and details. */
async function typed<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError && err.status < 500) {
      throw ApplicationFailure.create({
        type: err.code,
        message: err.message,
        details: err.details ? [err.details] : [],
        nonRetryable: true,
      });
    }
    throw err;
  }
}

export function createTaskActivities({ services }: { services: Services }): TaskActivities {
  return {
    async applyTaskChange({ taskId, change }) {
      const { actor, ...fields } = change;
      return typed(() => services.tasks.applyChange(taskId, fields, actor ?? null));
    },
    async startTaskFromAnalysis({ taskId }) {
      return services.tasks.startFromAnalysis(taskId);
    },
    async completeTaskFromAnalysis({ taskId, analysisId }) {
      return services.tasks.completeFromAnalysis(taskId, analysisId);
    },
    async raiseTaskOverdue({ taskId }) {
      return services.tasks.raiseOverdue(taskId);
    },
    async readTask({ taskId }) {
      return services.tasks.view(taskId);
    },
  };
}
