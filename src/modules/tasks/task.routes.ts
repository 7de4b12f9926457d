import type { AuthContext } from '../../http/auth-context.js';
import { NotAllowedError } from '../../lib/errors.js';
import { dataEnvelope, defineRoute, deletedSchema, idParams, listEnvelope } from '../../http/route.js';
import type { TaskCommands } from './task-commands.js';
import type { TaskService } from './task.service.js';
import {
  createTaskBody,
  listTasksQuery,
  summarizeTask,
  taskDetailSchema,
  taskSchema,
  updateTaskBody,
} from './task.schemas.js';

const params = idParams('tsk_01jdq3x4v6m8c9a1b2c3d4e5f6');
const tag = 'Tasks';

/** Fields a tasker (field staff) changes as they work; what the task is and who does it stay the office's. */
const TASKER_FIELDS: ReadonlySet<string> = new Set(['status', 'notes']);

function assertTaskerMayChange(auth: AuthContext, body: object) {
  if (auth.session?.memberRole !== 'tasker') return;
  const others = Object.keys(body).filter((k) => !TASKER_FIELDS.has(k));
  if (others.length > 0)
    throw new NotAllowedError(`A tasker changes a task's status and notes only, not ${others.join(', ')}.`, {
      fields: others,
    });
}

export function taskRoutes(tasks: TaskService, commands: TaskCommands) {
  return [
    defineRoute({
      method: 'post',
      path: '/tasks',
      operationId: 'createTask',
      summary: 'Create a field task (status pending)',
      description: 'Emits `task.created`. The task lives as a workflow until it is completed, cancelled or deleted.',
      tag,
      body: createTaskBody,
      status: 201,
      response: dataEnvelope(taskDetailSchema),
      handler: async ({ auth, body }) => ({
        status: 201,
        body: { data: await commands.create(auth.organisationId, body) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/tasks',
      operationId: 'listTasks',
      summary: 'List tasks',
      tag,
      taskers: true,
      query: listTasksQuery,
      status: 200,
      response: listEnvelope(taskSchema),
      handler: async ({ auth, query }) => {
        const { cursor, limit, ...filters } = query;
        const page = await tasks.list(auth.organisationId, filters, { cursor, limit });
        const data = (await tasks.details(page.items)).map(summarizeTask);
        return { body: { data, pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/tasks/{id}',
      operationId: 'getTask',
      summary: 'Get a task with its details',
      tag,
      taskers: true,
      params,
      status: 200,
      response: dataEnvelope(taskDetailSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => ({
        body: { data: await tasks.detail(await tasks.get(auth.organisationId, params.id)) },
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/tasks/{id}',
      operationId: 'updateTask',
      summary:
        'Change a task: status (pending → in_progress | completed | cancelled; in_progress → completed | cancelled) and fields',
      description:
        "Emits `task.updated` with `updatedFields`, and `task.completed` on completion. A refused transition is 409 INVALID_TRANSITION with `details.allowed`. A tasker's console session changes `status` and `notes` only.",
      tag,
      taskers: true,
      params,
      body: updateTaskBody,
      status: 200,
      response: dataEnvelope(taskDetailSchema),
      errors: ['NOT_FOUND', 'INVALID_TRANSITION'],
      handler: async ({ auth, params, body }) => {
        assertTaskerMayChange(auth, body);
        return { body: { data: await commands.update(auth.organisationId, params.id, body, auth.actorId) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/tasks/{id}',
      operationId: 'deleteTask',
      summary: 'Delete a task (ends its workflow)',
      tag,
      params,
      status: 200,
      response: dataEnvelope(deletedSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => {
        await commands.delete(auth.organisationId, params.id);
        return { body: { data: { id: params.id, deleted: true } } };
      },
    }),
  ];
}
