import { z } from 'zod';
import { cursorParam, limitParam } from '../../lib/pagination.js';
import { freeText, isoDate, singleLine } from '../../lib/validation.js';
import { TASK_STATUSES } from './task-transitions.js';
import type { Task } from './task.entity.js';
import type { TaskView } from '../../temporal/contracts/task.js';

const fields = {
  title: singleLine(z.string().trim().min(1).max(200)).meta({ example: 'Check chilled drinks, Holborn' }),
  placeId: z.string().max(100).nullable().optional().meta({ description: 'Place (pl_) to visit.' }),
  assignedTo: z.string().max(100).nullable().optional().meta({ description: 'User id (usr_) of the field worker.' }),
  dueDate: isoDate
    .nullable()
    .optional()
    .meta({ description: 'YYYY-MM-DD; overdue once the day has ended (UTC).', example: '2026-12-01' }),
  notes: freeText(z.string().max(5000)).nullable().optional(),
  description: freeText(z.string().max(5000)).nullable().optional(),
  expectationIds: z
    .array(z.string().max(100))
    .max(500)
    .optional()
    .meta({ description: 'Inventory item ids (inv_) expected on the shelf.' }),
};

export const createTaskBody = z
  .strictObject({ ...fields, projectId: z.string().max(100).nullable().optional() })
  .meta({ id: 'CreateTaskRequest' });
export const updateTaskBody = z
  .strictObject({ ...fields, title: fields.title.optional(), status: z.enum(TASK_STATUSES).optional() })
  .refine((b) => Object.keys(b).length > 0, 'Give at least one field to change.')
  .meta({ id: 'UpdateTaskRequest' });
export type CreateTaskInput = z.infer<typeof createTaskBody>;
export type UpdateTaskInput = z.infer<typeof updateTaskBody>;

export const listTasksQuery = z.strictObject({
  status: z.enum(TASK_STATUSES).optional(),
  placeId: z.string().max(100).optional(),
  assignedTo: z.string().max(100).optional(),
  projectId: z.string().max(100).optional(),
  cursor: cursorParam,
  limit: limitParam(),
});

export const taskSchema = z
  .object({
    id: z.string().meta({ example: 'tsk_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    title: z.string(),
    status: z.enum(TASK_STATUSES),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    placeId: z.string().nullable(),
    placeName: z.string().nullable(),
    assignedTo: z.string().nullable(),
    dueDate: z.string().nullable(),
    complianceScore: z.number().nullable(),
    projectId: z.string().nullable(),
  })
  .meta({ id: 'Task' });

export const taskDetailSchema = taskSchema
  .extend({
    notes: z.string().nullable(),
    description: z.string().nullable(),
    complianceGrade: z.enum(['A', 'B', 'C', 'D', 'F']).nullable(),
    generationId: z.string().nullable().meta({ description: 'The analysis (an_) that completed the task.' }),
    expectationIds: z.array(z.string()),
    completedAt: z.iso.datetime().nullable(),
    completedBy: z.string().nullable().meta({
      description:
        'Who completed it: the API key (key_), or the member (usr_) in the console; null when an analysis did.',
    }),
  })
  .meta({ id: 'TaskDetail' });
export type TaskDetail = z.infer<typeof taskDetailSchema>;
// The API answers a change with what the task workflow's update answered (TaskView): one shape.
const _sameShape: [TaskDetail, TaskView] extends [TaskView, TaskDetail] ? true : never = true;

export function serializeTask(t: Task, placeName: string | null): TaskDetail {
  return {
    id: t.id,
    title: t.title,
    status: t.status,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
    placeId: t.placeId ?? null,
    placeName,
    assignedTo: t.assignedTo ?? null,
    dueDate: t.dueDate ?? null,
    complianceScore: t.complianceScore == null ? null : Number(t.complianceScore),
    projectId: t.projectId ?? null,
    notes: t.notes ?? null,
    description: t.description ?? null,
    complianceGrade: (t.complianceGrade as TaskDetail['complianceGrade']) ?? null,
    generationId: t.generationId ?? null,
    expectationIds: t.expectationIds,
    completedAt: t.completedAt ? t.completedAt.toISOString() : null,
    completedBy: t.completedBy ?? null,
  };
}

/** The list shows the summary fields only (spec: notes, description… are detail only). */
export function summarizeTask(d: TaskDetail): z.infer<typeof taskSchema> {
  const {
    id,
    title,
    status,
    createdAt,
    updatedAt,
    placeId,
    placeName,
    assignedTo,
    dueDate,
    complianceScore,
    projectId,
  } = d;
  return {
    id,
    title,
    status,
    createdAt,
    updatedAt,
    placeId,
    placeName,
    assignedTo,
    dueDate,
    complianceScore,
    projectId,
  };
}
