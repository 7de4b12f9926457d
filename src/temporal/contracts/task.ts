// The task workflow's contract (see analysis.ts for how contracts are used). The transition rules
// themselves are domain (modules/tasks/task-transitions.ts), shared by the service and the workflow.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { TaskStatus } from '../../modules/tasks/task-transitions.js';

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

/** A task as the update answers it (the API's TaskDetail has this shape: task.schemas.ts checks it). */
export type TaskView = {
  id: string;
  title: string;
  status: TaskStatus;
  createdAt: string;
  updatedAt: string;
  placeId: string | null;
  placeName: string | null;
  assignedTo: string | null;
  dueDate: string | null;
  complianceScore: number | null;
  projectId: string | null;
  notes: string | null;
  description: string | null;
  complianceGrade: 'A' | 'B' | 'C' | 'D' | 'F' | null;
  generationId: string | null;
  expectationIds: string[];
  completedAt: string | null;
  completedBy: string | null;
};

/**
 * A change as the task workflow's update carries it, kept in its history: a type of its own, not the
 * API's request body, so a change to that body is a decision here (task-commands.ts maps one onto
 * the other) and never silently a change to what stored histories hold. `actor`: who asked.
 */
export type TaskChange = {
  title?: string;
  status?: TaskStatus;
  placeId?: string | null;
  assignedTo?: string | null;
  dueDate?: string | null;
  notes?: string | null;
  description?: string | null;
  expectationIds?: string[];
  actor?: string | null;
};

/** An applied change: the task after it, the events it wrote, and its due date (the overdue timer's). */
export type TaskChangeResult = { task: TaskView; eventIds: string[]; dueDate: string | null };

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
