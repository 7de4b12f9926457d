import {
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { startAfterCommit, startOnce } from '../../temporal/start-once.js';
import { ApplicationFailure } from '@temporalio/common';
import {
  AppError,
  InvalidTransitionError,
  NotFoundError,
  ServiceUnavailableError,
  isErrorCode,
} from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import {
  TASK_WORKFLOW,
  changeTaskUpdate,
  taskDeletedSignal,
  type TaskChange,
  type TaskWorkflow,
} from '../../temporal/contracts/task.js';
import { SA } from '../../temporal/contracts/search-attributes.js';
import type { TaskQueues } from '../../temporal/contracts/task-queues.js';
import type { EventDispatcher } from '../webhooks/event-dispatcher.js';
import type { DispatchPriorities } from '../organisations/dispatch-priority.js';
import type { Task } from './task.entity.js';
import type { CreateTaskInput, TaskDetail, UpdateTaskInput } from './task.schemas.js';
import type { TaskService } from './task.service.js';

/**
 * What the API does to tasks: the database through TaskService, the lifecycle through the task's
 * workflow (workflow id = task id).
 */
/** What TaskCommands uses (src/commands.ts builds it once per process). */
export type TaskCommandsDeps = {
  tasks: TaskService;
  client: Client;
  queues: Pick<TaskQueues, 'tasks'>;
  dispatcher: EventDispatcher;
  logger: Logger;
  /** The organisation's fairness key and weight for a start (dispatch-priority.ts). */
  priorities: DispatchPriorities;
  /** TASK_OVERDUE_AFTER_MS */
  overdueAfterMs: number;
  /** How long an update waits for a worker to decide it (config TASK_UPDATE_WAIT_MS). */
  updateWaitMs: number;
};

export class TaskCommands {
  private readonly tasks: TaskService;
  private readonly client: Client;
  private readonly queues: Pick<TaskQueues, 'tasks'>;
  private readonly dispatcher: EventDispatcher;
  private readonly logger: Logger;
  private readonly priorities: DispatchPriorities;
  private readonly overdueAfterMs: number;
  private readonly updateWaitMs: number;

  constructor({
    tasks,
    client,
    queues,
    dispatcher,
    logger,
    priorities,
    overdueAfterMs,
    updateWaitMs,
  }: TaskCommandsDeps) {
    this.tasks = tasks;
    this.client = client;
    this.queues = queues;
    this.dispatcher = dispatcher;
    this.logger = logger;
    this.priorities = priorities;
    this.overdueAfterMs = overdueAfterMs;
    this.updateWaitMs = updateWaitMs;
  }

  async start(task: Task): Promise<void> {
    // The task's signals (a batch of photos for it) queue in its organisation's lane.
    const priority = await this.priorities.of(task.organisationId, 'other');
    await startOnce(() =>
      this.client.workflow.start<TaskWorkflow>(TASK_WORKFLOW, {
        workflowId: task.id,
        priority,
        taskQueue: this.queues.tasks,
        args: [
          {
            taskId: task.id,
            status: task.status,
            dueDate: task.dueDate ?? null,
            overdueAfterMs: this.overdueAfterMs,
            overdueRaisedFor: null,
          },
        ],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        memo: { title: task.title },
        typedSearchAttributes: [
          { key: SA.organisationId, value: task.organisationId },
          { key: SA.taskId, value: task.id },
          ...(task.placeId ? [{ key: SA.placeId, value: task.placeId }] : []),
        ],
      }),
    );
    await this.tasks.markWorkflowStarted(task.id);
  }

  async create(organisationId: string, input: CreateTaskInput): Promise<TaskDetail> {
    const { task, eventId } = await this.tasks.create(organisationId, input);
    // Both are repeated by the worker's relay if this process dies here.
    await startAfterCommit(this.logger, 'task workflow start or event dispatch', { taskId: task.id }, async () => {
      await this.start(task);
      await this.dispatcher.dispatch(eventId);
    });
    return this.tasks.detail(task);
  }

  /** Sent to the workflow as an Update: the answer is the workflow's decision. */
  async update(organisationId: string, id: string, change: UpdateTaskInput, actor: string | null): Promise<TaskDetail> {
    await this.tasks.checkChange(organisationId, id, change);
    const handle = this.client.workflow.getHandle(id);
    const deadline = Date.now() + this.updateWaitMs;
    try {
      // Bounded: with no worker running, Temporal holds an Update until one comes back.
      return await this.client.connection.withDeadline(deadline, () =>
        handle.executeUpdate(changeTaskUpdate, { args: [taskChange(change, actor)] }),
      );
    } catch (err) {
      const timedOut = err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || err instanceof ServiceError;
      if (timedOut && Date.now() >= deadline)
        throw new ServiceUnavailableError(
          'No worker decided the change in time (are the workers running?). It may still be applied once they are back: read the task before sending it again.',
        );
      if (err instanceof WorkflowNotFoundError) {
        // The workflow has ended (the task is final): field edits still apply, transitions are refused.
        const result = await this.tasks.applyChange(id, change, actor);
        if (result.eventIds.length) for (const e of result.eventIds) await this.dispatcher.dispatch(e);
        return result.task;
      }
      throw toAppError(err, id);
    }
  }

  /** The relay's share: tasks committed whose workflow start was never confirmed. */
  async sweep(graceMs: number): Promise<number> {
    const stranded = await this.tasks.repo.find(
      { workflowStartedAt: null, createdAt: { $lt: new Date(Date.now() - graceMs) } },
      { limit: 100, orderBy: { id: 'asc' } },
    );
    for (const task of stranded) await this.start(task);
    return stranded.length;
  }

  async delete(organisationId: string, id: string): Promise<void> {
    await this.tasks.delete(organisationId, id);
    await this.client.workflow
      .getHandle(id)
      .signal(taskDeletedSignal)
      .catch((err) => {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      });
  }
}

function toAppError(err: unknown, id: string): unknown {
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const details = (cause.details?.[0] ?? {}) as { from?: string; to?: string; allowed?: string[] };
    if (cause.type === 'INVALID_TRANSITION')
      return new InvalidTransitionError('task', details.from ?? '?', details.to ?? '?', details.allowed ?? []);
    if (cause.type === 'NOT_FOUND') return new NotFoundError('task', id);
    // Our own refusals, typed by the activity (task.activities.ts): the code keeps its status.
    if (cause.type && isErrorCode(cause.type))
      return new AppError(cause.type, cause.message, cause.details?.[0] as Record<string, unknown>);
  }
  return err;
}

/** The request body as the task workflow's update carries it into history (contracts/task.ts). */
function taskChange(body: UpdateTaskInput, actor: string | null): TaskChange {
  const { title, status, placeId, assignedTo, dueDate, notes, description, expectationIds, ...unmapped } = body;
  // A field added to the body stops compiling here until the contract decides what becomes of it.
  const _unmapped: Record<string, never> = unmapped;
  return { title, status, placeId, assignedTo, dueDate, notes, description, expectationIds, actor };
}
