// The task workflow's contract (see analysis.ts for how contracts are used). The transition rules
// themselves are domain (modules/tasks/task-transitions.ts), shared by the service and the workflow.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { TaskStatus } from '../../modules/tasks/task-transitions.js';
import type { TaskDetail, UpdateTaskInput } from '../../modules/tasks/task.schemas.js';
import type { TaskChangeResult } from '../../modules/tasks/task.service.js';

export const TASK_WORKFLOW = 'taskWorkflow';

export type TaskWorkflowInput = {
  taskId: string;
  status: TaskStatus;
  dueDate: string | null;
  /** Overdue this long after 00:00 UTC of the due date. */
  overdueAfterMs: number;
  /** The due date an overdue alert was already raised for (kept across continue-as-new). */
  overdueRaisedFor: string | null;
};
export type TaskState = {
  status: TaskStatus;
  dueDate: string | null;
  overdueRaisedFor: string | null;
  deleted: boolean;
};
export type TaskWorkflow = (input: TaskWorkflowInput) => Promise<TaskState>;

export type TaskView = TaskDetail;
export type TaskChange = UpdateTaskInput & { actor?: string | null };
export type { TaskChangeResult };

/** Status and field changes: validated against the workflow's state, applied by an activity, answered with the task. */
export const changeTaskUpdate = defineUpdate<TaskView, [TaskChange]>('changeTask');
export const analysisSubmittedSignal = defineSignal<[{ analysisId: string }]>('analysisSubmitted');
export const analysisFinishedSignal =
  defineSignal<[{ analysisId: string; status: 'completed' | 'failed' }]>('analysisFinished');
export const taskDeletedSignal = defineSignal('taskDeleted');
export const taskStateQuery = defineQuery<TaskState>('taskState');

export interface TaskActivities {
  applyTaskChange(input: { taskId: string; change: TaskChange }): Promise<TaskChangeResult>;
  startTaskFromAnalysis(input: { taskId: string }): Promise<TaskChangeResult | null>;
  completeTaskFromAnalysis(input: { taskId: string; analysisId: string }): Promise<TaskChangeResult | null>;
  raiseTaskOverdue(input: { taskId: string }): Promise<boolean>;
  readTask(input: { taskId: string }): Promise<TaskView | null>;
}
