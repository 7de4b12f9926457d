import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { DeliveryActivities } from '../src/temporal/contracts/delivery.js';
import {
  analysisFinishedSignal,
  analysisSubmittedSignal,
  changeTaskUpdate,
  taskDeletedSignal,
  taskStateQuery,
  type TaskActivities,
  type TaskState,
  type TaskView,
  type TaskWorkflow,
  type TaskWorkflowInput,
} from '../src/temporal/contracts/task.js';
import {
  BOOKKEEPING,
  BOOKKEEPING_LOCAL,
  DATABASE_REFUSED,
  INTERACTIVE,
  NEEDS_ATTENTION,
} from '../src/temporal/contracts/durable-steps.js';
import { SA } from '../src/temporal/contracts/search-attributes.js';
import { TASK_TRANSITIONS, isFinal } from '../src/modules/tasks/task-transitions.js';

/** Steps of the task's own: bounded (durable-steps.ts), and each failure handled below so the workflow keeps serving. */
const tasks = proxyActivities<TaskActivities>(BOOKKEEPING);
/** A change an API request is waiting for: a few quick attempts, then the request fails. */
const changes = proxyActivities<TaskActivities>(INTERACTIVE);
const deliveries = proxyActivities<DeliveryActivities>(BOOKKEEPING);
/**
 * Since QUICK_CHANGE: an update's change runs as a local activity in the workflow task that received
 * the update (no activity task round trip through the server), and the update is answered once the
 * change is committed; its events are dispatched after the answer, still in order before the next
 * change (they are in the outbox either way, so the relay covers a worker lost in between).
 */
const changesLocal = proxyLocalActivities<TaskActivities>(INTERACTIVE);
const deliveriesLocal = proxyLocalActivities<DeliveryActivities>(BOOKKEEPING_LOCAL);
const QUICK_CHANGE = 'task-change-local-answer-first';

/**
 * A failure as logged: its type, and its message unless it is an error converted from a raw
 * exception (a driver error's message carries the statement and its values; ours never do).
 */
const failureOf = (err: unknown) => {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure)
    return { type: cause.type, message: cause.nonRetryable ? cause.message : undefined };
  return {
    type: cause instanceof Error ? cause.name : null,
    message: cause instanceof Error ? cause.message : undefined,
  };
};

/**
 * One task from creation to its final state (workflow id = task id). Changes arrive as a Temporal
 * Update, so the API answers with the workflow's decision; a durable timer raises task_overdue when
 * the due date passes with the task still open; analyses for the task move it along by signal.
 */
export async function taskWorkflow(input: TaskWorkflowInput): Promise<TaskState> {
  const state: TaskState = {
    status: input.status,
    dueDate: input.dueDate,
    overdueRaisedFor: input.overdueRaisedFor,
    deleted: false,
  };
  let dueChanged = false;
  // Handlers run one at a time, in arrival order: two completions cannot interleave.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn);
    queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };
  const absorbState = (task: TaskView) => {
    if (task.dueDate !== state.dueDate) dueChanged = true;
    state.status = task.status;
    state.dueDate = task.dueDate;
  };
  const dispatch = async (eventIds: string[], via: DeliveryActivities) => {
    if (!eventIds.length) return;
    try {
      await via.dispatchEvents({ eventIds });
    } catch (err) {
      // The events are committed with dispatched_at null: the worker's relay dispatches them.
      log.warn('task event dispatch left to the relay', { taskId: input.taskId, ...failureOf(err) });
    }
  };
  const absorb = async (result: { task: TaskView; eventIds: string[] } | null) => {
    if (!result) return;
    absorbState(result.task);
    await dispatch(result.eventIds, deliveries);
  };
  /**
   * A step the analysis or the due date drove failed for good (a database refusal, or retries out):
   * it is logged and the workflow marked for an operator (EntityStatus = needs_attention; the failed
   * activity, with its SQLSTATE, is in the history), and the task's state is read back, since the
   * step may have committed part of its work (completing the task before raising its alerts). The
   * workflow goes on serving updates either way; they re-read the row under its lock.
   */
  const stepFailed = async (step: string, err: unknown) => {
    log.error('task step failed', { taskId: input.taskId, step, ...failureOf(err) });
    upsertSearchAttributes([{ key: SA.status, value: NEEDS_ATTENTION }]);
    try {
      const task = await tasks.readTask({ taskId: input.taskId });
      if (task) await absorb({ task, eventIds: [] });
      else state.deleted = true;
    } catch (readErr) {
      log.warn('task state not re-read', { taskId: input.taskId, ...failureOf(readErr) });
    }
  };
  const step = (name: string, fn: () => Promise<{ task: TaskView; eventIds: string[] } | null>) =>
    serial(async () => {
      try {
        await absorb(await fn());
      } catch (err) {
        await stepFailed(name, err);
      }
    });

  setHandler(taskStateQuery, () => state);
  setHandler(
    changeTaskUpdate,
    (change) =>
      serial(async () => {
        try {
          if (patched(QUICK_CHANGE)) {
            const result = await changesLocal.applyTaskChange({ taskId: input.taskId, change });
            absorbState(result.task);
            // Queued behind this handler: the answer does not wait for it, the next change does.
            if (result.eventIds.length) void serial(() => dispatch(result.eventIds, deliveriesLocal));
            return result.task;
          }
          const result = await changes.applyTaskChange({ taskId: input.taskId, change });
          await absorb(result);
          return result.task;
        } catch (err) {
          // The activity's typed refusal (INVALID_TRANSITION, validation) becomes the update's answer.
          // Anything else (a database refusal, retries out) fails the update as it is: the API
          // answers 500 without quoting it, and the workflow goes on serving.
          if (
            err instanceof ActivityFailure &&
            err.cause instanceof ApplicationFailure &&
            err.cause.nonRetryable &&
            err.cause.type !== DATABASE_REFUSED
          )
            throw err.cause;
          throw err;
        }
      }),
    {
      validator: (change) => {
        if (state.deleted)
          throw ApplicationFailure.create({ type: 'NOT_FOUND', message: 'The task was deleted.', nonRetryable: true });
        if (
          change.status &&
          change.status !== state.status &&
          !TASK_TRANSITIONS[state.status].includes(change.status)
        ) {
          throw ApplicationFailure.create({
            type: 'INVALID_TRANSITION',
            message: `A task cannot move from '${state.status}' to '${change.status}'.`,
            details: [{ from: state.status, to: change.status, allowed: [...TASK_TRANSITIONS[state.status]] }],
            nonRetryable: true,
          });
        }
      },
    },
  );
  setHandler(
    analysisSubmittedSignal,
    () => void step('startTaskFromAnalysis', () => tasks.startTaskFromAnalysis({ taskId: input.taskId })),
  );
  setHandler(analysisFinishedSignal, ({ analysisId, status }) => {
    if (status === 'completed')
      void step('completeTaskFromAnalysis', () => tasks.completeTaskFromAnalysis({ taskId: input.taskId, analysisId }));
  });
  setHandler(taskDeletedSignal, () => {
    state.deleted = true;
  });

  while (!state.deleted && !isFinal(state.status)) {
    dueChanged = false;
    const pendingDue = state.dueDate && state.overdueRaisedFor !== state.dueDate ? state.dueDate : null;
    const wake = () => state.deleted || isFinal(state.status) || dueChanged || workflowInfo().continueAsNewSuggested;
    if (pendingDue) {
      const dueAt = Date.parse(`${pendingDue}T00:00:00Z`) + input.overdueAfterMs;
      const woke = await condition(wake, Math.max(0, dueAt - Date.now()));
      if (!woke) {
        // Once per due date, raised or failed: a failure is the operator's (stepFailed), not a loop's.
        await step('raiseTaskOverdue', async () => {
          await tasks.raiseTaskOverdue({ taskId: input.taskId });
          return null;
        });
        state.overdueRaisedFor = pendingDue;
      }
    } else {
      await condition(wake);
    }
    if (workflowInfo().continueAsNewSuggested && !state.deleted && !isFinal(state.status)) {
      await condition(allHandlersFinished);
      await queue; // dispatches queued after an update's answer
      await continueAsNew<typeof taskWorkflow>({
        ...input,
        status: state.status,
        dueDate: state.dueDate,
        overdueRaisedFor: state.overdueRaisedFor,
      });
    }
  }
  await queue;
  await condition(allHandlersFinished);
  return state;
}

taskWorkflow satisfies TaskWorkflow;
