import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { DeliveryActivities } from '../activities/delivery.activities.js';
import type { TaskActivities, TaskChange, TaskView } from '../activities/task.activities.js';
import { TASK_TRANSITIONS, isFinal, type TaskStatus } from './shared/task-transitions.js';

export type TaskWorkflowInput = {
  taskId: string;
  status: TaskStatus;
  dueDate: string | null;
  /** Overdue this long after 00:00 UTC of the due date. */
  overdueAfterMs: number;
  /** The due date an overdue alert was already raised for (kept across continue-as-new). */
  overdueRaisedFor: string | null;
};

export type TaskState = { status: TaskStatus; dueDate: string | null; overdueRaisedFor: string | null; deleted: boolean };

/** Status and field changes: validated against the workflow's state, applied by an activity, answered with the task. */
export const changeTaskUpdate = defineUpdate<TaskView, [TaskChange]>('changeTask');
export const analysisSubmittedSignal = defineSignal<[{ analysisId: string }]>('analysisSubmitted');
export const analysisFinishedSignal = defineSignal<[{ analysisId: string; status: 'completed' | 'failed' }]>('analysisFinished');
export const taskDeletedSignal = defineSignal('taskDeleted');
export const taskStateQuery = defineQuery<TaskState>('taskState');

const tasks = proxyActivities<TaskActivities>({ startToCloseTimeout: '1 minute', retry: { initialInterval: '1 second', maximumInterval: '30 seconds' } });
const deliveries = proxyActivities<DeliveryActivities>({ startToCloseTimeout: '1 minute', retry: { initialInterval: '1 second', maximumInterval: '30 seconds' } });

/**
 * One task from creation to its final state (workflow id = task id). Changes arrive as a Temporal
 * Update, so the API answers with the workflow's decision; a durable timer raises task_overdue when
 * the due date passes with the task still open; analyses for the task move it along by signal.
 */
export async function taskWorkflow(input: TaskWorkflowInput): Promise<TaskState> {
  const state: TaskState = { status: input.status, dueDate: input.dueDate, overdueRaisedFor: input.overdueRaisedFor, deleted: false };
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
  const absorb = async (result: { task: TaskView; eventIds: string[] } | null) => {
    if (!result) return;
    if (result.task.dueDate !== state.dueDate) dueChanged = true;
    state.status = result.task.status;
    state.dueDate = result.task.dueDate;
    if (result.eventIds.length) await deliveries.dispatchEvents({ eventIds: result.eventIds });
  };

  setHandler(taskStateQuery, () => state);
  setHandler(
    changeTaskUpdate,
    (change) =>
      serial(async () => {
        try {
          const result = await tasks.applyTaskChange({ taskId: input.taskId, change });
          await absorb(result);
          return result.task;
        } catch (err) {
          // The activity's typed refusal (INVALID_TRANSITION, validation) becomes the update's answer.
          if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) throw err.cause;
          throw err;
        }
      }),
    {
      validator: (change) => {
        if (state.deleted) throw ApplicationFailure.create({ type: 'NOT_FOUND', message: 'The task was deleted.', nonRetryable: true });
        if (change.status && change.status !== state.status && !TASK_TRANSITIONS[state.status].includes(change.status)) {
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
  setHandler(analysisSubmittedSignal, () => void serial(async () => absorb(await tasks.startTaskFromAnalysis({ taskId: input.taskId }))));
  setHandler(analysisFinishedSignal, ({ analysisId, status }) => {
    if (status === 'completed') void serial(async () => absorb(await tasks.completeTaskFromAnalysis({ taskId: input.taskId, analysisId })));
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
        await serial(() => tasks.raiseTaskOverdue({ taskId: input.taskId }));
        state.overdueRaisedFor = pendingDue;
      }
    } else {
      await condition(wake);
    }
    if (workflowInfo().continueAsNewSuggested && !state.deleted && !isFinal(state.status)) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof taskWorkflow>({ ...input, status: state.status, dueDate: state.dueDate, overdueRaisedFor: state.overdueRaisedFor });
    }
  }
  await queue;
  await condition(allHandlersFinished);
  return state;
}
