import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';

const p = defineEntity.properties;

export { TASK_STATUSES, TASK_TRANSITIONS, type TaskStatus } from './task-transitions.js';
import { TASK_STATUSES } from './task-transitions.js';
import { TaskRepository } from './task.repository.js';

export const Task = defineEntity({
  name: 'Task',
  tableName: 'tasks',
  repository: () => TaskRepository,
  properties: {
    ...tenantProperties,
    projectId: p.string().nullable(),
    title: p.string(),
    description: p.text().nullable(),
    notes: p.text().nullable(),
    status: p.enum([...TASK_STATUSES]).default('pending'),
    placeId: p.string().nullable(),
    assignedTo: p.string().nullable(),
    /** A calendar date (YYYY-MM-DD); the task is overdue once that day has ended, UTC. */
    dueDate: p.string().length(10).nullable(),
    expectationIds: p.json<string[]>(),
    /** Outbox marker: null until the task's workflow is known to exist. */
    workflowStartedAt: p.datetime().nullable(),
    generationId: p.string().nullable(),
    complianceScore: p.decimal('string').precision(4).scale(1).nullable(),
    complianceGrade: p.string().length(1).nullable(),
    completedAt: p.datetime().nullable(),
    completedBy: p.string().nullable(),
  },
  indexes: [
    { properties: ['organisationId', 'id'], name: 'tasks_org_id_index' },
    { properties: ['organisationId', 'placeId'], name: 'tasks_org_place_id_index' },
    { properties: ['organisationId', 'createdAt'], name: 'tasks_org_created_at_index' },
  ],
});
export type Task = InferEntity<typeof Task>;
