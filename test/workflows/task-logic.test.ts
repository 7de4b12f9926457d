import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, WorkflowUpdateFailedError } from '@temporalio/client';
import type { DeliveryActivities } from '../../src/temporal/contracts/delivery.js';
import { DATABASE_REFUSED, NEEDS_ATTENTION } from '../../src/temporal/contracts/durable-steps.js';
import {
  TASK_WORKFLOW,
  analysisFinishedSignal,
  analysisSubmittedSignal,
  changeTaskUpdate,
  taskDeletedSignal,
  type TaskActivities,
  type TaskChangeResult,
  type TaskView,
  type TaskWorkflow,
} from '../../src/temporal/contracts/task.js';
import type { TaskStatus } from '../../src/modules/tasks/task-transitions.js';
import { callerId, entityStatus, useMockedWorker } from '../helpers/mocked-activities.js';

const view = (id: string, status: TaskStatus, dueDate: string | null = null): TaskView => ({
  id,
  title: 'Mocked',
  status,
  createdAt: '2026-11-26T00:00:00.000Z',
  updatedAt: '2026-11-26T00:00:00.000Z',
  placeId: null,
  placeName: null,
  assignedTo: null,
  dueDate,
  complianceScore: null,
  projectId: null,
  notes: null,
  description: null,
  complianceGrade: null,
  generationId: null,
  expectationIds: [],
  completedAt: null,
  completedBy: null,
});

/** The type of the ApplicationFailure an error is or was caused by. */
function failureType(err: unknown): string | undefined {
  for (let e = err; e; e = (e as Error).cause) if (e instanceof ApplicationFailure) return e.type ?? undefined;
  return undefined;
}

/** What a test scripts for its task: each activity's answer (throwing for a failure), all optional. */
type Script = Partial<TaskActivities> & { log: string[] };

/**
 * The task workflow's own logic, its activities functions of the test (no database): changes by
 * update applied in order and answered with the task (a refusal as the update's failure), the
 * analysis's signals moving the task along, a failed step marked for an operator and read back, the
 * overdue timer, deletion.
 */
// A workflow broken into a loop would hang the run: the suite fails after its timeout instead.
describe('the task workflow, with its activities mocked', { timeout: 300_000 }, () => {
  const scripts = new Map<string, Script>();
  const script = () => scripts.get(callerId())!;
  const local = () => (Context.current().info.isLocal ? ' (local)' : '');
  const step =
    <K extends keyof TaskActivities>(name: K) =>
    async (input: Parameters<TaskActivities[K]>[0]) => {
      const s = script();
      const detail = 'change' in input ? `:${JSON.stringify(input.change)}` : '';
      s.log.push(`${name}${detail}${local()}`);
      const fn = s[name] as ((i: typeof input) => Promise<unknown>) | undefined;
      if (!fn) throw ApplicationFailure.create({ message: `${name} not scripted`, nonRetryable: true });
      return fn(input);
    };
  const activities: TaskActivities & DeliveryActivities = {
    applyTaskChange: step('applyTaskChange') as TaskActivities['applyTaskChange'],
    startTaskFromAnalysis: step('startTaskFromAnalysis') as TaskActivities['startTaskFromAnalysis'],
    completeTaskFromAnalysis: step('completeTaskFromAnalysis') as TaskActivities['completeTaskFromAnalysis'],
    raiseTaskOverdue: step('raiseTaskOverdue') as TaskActivities['raiseTaskOverdue'],
    readTask: step('readTask') as TaskActivities['readTask'],
    async attemptDelivery() {
      throw new Error('a task attempts no delivery');
    },
    async deliverEvents() {
      throw new Error('a task makes no first delivery attempt');
    },
    async dispatchEvents({ eventIds }) {
      script().log.push(`dispatchEvents:${eventIds.join(',')}${local()}`);
      return { deliveries: eventIds.length };
    },
  };
  const temporal = useMockedWorker(activities);

  async function startTask(
    status: TaskStatus,
    scripted: Partial<TaskActivities>,
    due: { dueDate: string; overdueAfterMs: number } | null = null,
  ) {
    const taskId = `tsk-mocked-${randomBytes(4).toString('hex')}`;
    const log: string[] = [];
    scripts.set(taskId, { ...scripted, log });
    const handle = await temporal.env.client.workflow.start<TaskWorkflow>(TASK_WORKFLOW, {
      taskQueue: temporal.taskQueue,
      workflowId: taskId,
      args: [
        {
          taskId,
          status,
          dueDate: due?.dueDate ?? null,
          overdueAfterMs: due?.overdueAfterMs ?? 0,
          overdueRaisedFor: null,
        },
      ],
    });
    return { taskId, handle, log };
  }
  const changed = (task: TaskView, eventIds: string[]): TaskChangeResult => ({
    task,
    eventIds,
    dueDate: task.dueDate,
  });

  it('applies each change locally and answers with the task; its events dispatched before the next change; ends when final', async () => {
    let n = 0;
    const { taskId, handle, log } = await startTask('pending', {
      applyTaskChange: async ({ taskId: id, change }) => changed(view(id, change.status!), [`evt-${++n}`]),
    });
    const first = await handle.executeUpdate(changeTaskUpdate, { args: [{ status: 'in_progress' }] });
    assert.equal(first.status, 'in_progress');
    assert.equal(first.id, taskId);
    const second = await handle.executeUpdate(changeTaskUpdate, { args: [{ status: 'completed' }] });
    assert.equal(second.status, 'completed');
    assert.deepEqual(await handle.result(), {
      status: 'completed',
      dueDate: null,
      overdueRaisedFor: null,
      deleted: false,
    });
    assert.deepEqual(log, [
      'applyTaskChange:{"status":"in_progress"} (local)',
      'dispatchEvents:evt-1 (local)',
      'applyTaskChange:{"status":"completed"} (local)',
      'dispatchEvents:evt-2 (local)',
    ]);
  });

  it('refuses a transition the state machine forbids before any activity runs, and goes on serving', async () => {
    const { handle, log } = await startTask('in_progress', {
      applyTaskChange: async ({ taskId: id, change }) => changed(view(id, change.status!), []),
    });
    const refused = await handle
      .executeUpdate(changeTaskUpdate, { args: [{ status: 'pending' }] })
      .then(() => assert.fail('the update was accepted'))
      .catch((err: unknown) => err);
    assert.ok(refused instanceof WorkflowUpdateFailedError, String(refused));
    assert.ok(refused.cause instanceof ApplicationFailure);
    assert.equal(refused.cause.type, 'INVALID_TRANSITION');
    assert.deepEqual(refused.cause.details, [
      { from: 'in_progress', to: 'pending', allowed: ['completed', 'cancelled'] },
    ]);
    assert.deepEqual(log, []);
    assert.equal(
      (await handle.executeUpdate(changeTaskUpdate, { args: [{ status: 'cancelled' }] })).status,
      'cancelled',
    );
    assert.equal((await handle.result()).status, 'cancelled');
  });

  it("answers an activity's typed refusal as the update's failure, a database refusal too; a failed attempt is retried", async () => {
    let attempts = 0;
    const { handle, log } = await startTask('pending', {
      applyTaskChange: async ({ taskId: id, change }) => {
        if (change.notes === 'invalid')
          throw ApplicationFailure.create({ type: 'VALIDATION', message: 'bad notes', nonRetryable: true });
        if (change.notes === 'refused')
          throw ApplicationFailure.create({ type: DATABASE_REFUSED, message: 'check violated', nonRetryable: true });
        if (change.status === 'completed' && ++attempts === 1) throw new Error('connection lost');
        return changed(view(id, change.status ?? 'pending'), []);
      },
    });
    const failure = (notes: string) =>
      handle
        .executeUpdate(changeTaskUpdate, { args: [{ notes }] })
        .then(() => assert.fail('the update was accepted'))
        .catch((err: unknown) => (err as WorkflowUpdateFailedError).cause);
    const invalid = await failure('invalid');
    assert.ok(invalid instanceof ApplicationFailure, String(invalid));
    assert.equal(invalid.type, 'VALIDATION');
    const refused = await failure('refused');
    // Not a refusal of ours: the update fails with it as it is (the API answers 500, not quoting it).
    assert.equal(failureType(refused), DATABASE_REFUSED);
    // The workflow still serves: this change's first attempt fails, the second applies it.
    assert.equal(
      (await handle.executeUpdate(changeTaskUpdate, { args: [{ status: 'completed' }] })).status,
      'completed',
    );
    assert.equal(attempts, 2);
    assert.equal((await handle.result()).status, 'completed');
    assert.equal(log.filter((l) => l.startsWith('dispatchEvents')).length, 0, 'no events, no dispatch');
  });

  it("moves along by the analysis's signals: started, then completed, each step's events dispatched", async () => {
    const { taskId, handle, log } = await startTask('pending', {
      startTaskFromAnalysis: async ({ taskId: id }) => changed(view(id, 'in_progress'), ['evt-start']),
      completeTaskFromAnalysis: async ({ taskId: id, analysisId }) => {
        assert.equal(analysisId, 'an-1');
        return changed(view(id, 'completed'), ['evt-done']);
      },
    });
    await handle.signal(analysisSubmittedSignal, { analysisId: 'an-1' });
    // A failed analysis does not complete the task.
    await handle.signal(analysisFinishedSignal, { analysisId: 'an-0', status: 'failed' });
    await handle.signal(analysisFinishedSignal, { analysisId: 'an-1', status: 'completed' });
    assert.equal((await handle.result()).status, 'completed');
    assert.deepEqual(log, [
      'startTaskFromAnalysis',
      'dispatchEvents:evt-start',
      'completeTaskFromAnalysis',
      'dispatchEvents:evt-done',
    ]);
    assert.notEqual(await entityStatus(temporal.env, taskId), NEEDS_ATTENTION);
  });

  it('a step the database refuses is marked for an operator, the task read back, and the workflow goes on to its end', async () => {
    const { taskId, handle, log } = await startTask('in_progress', {
      completeTaskFromAnalysis: async () => {
        throw ApplicationFailure.create({ type: DATABASE_REFUSED, message: 'refused', nonRetryable: true });
      },
      // The step committed the completion before the refusal: the read finds the task completed.
      readTask: async ({ taskId: id }) => view(id, 'completed'),
    });
    await handle.signal(analysisFinishedSignal, { analysisId: 'an-1', status: 'completed' });
    assert.equal((await handle.result()).status, 'completed');
    assert.deepEqual(log, ['completeTaskFromAnalysis', 'readTask']);
    assert.equal(await entityStatus(temporal.env, taskId), NEEDS_ATTENTION);
  });

  it('raises overdue once when the due date passes with the task open; deleted, it ends', async () => {
    let raised!: () => void;
    const overdue = new Promise<void>((r) => (raised = r));
    const { handle, log } = await startTask(
      'pending',
      {
        raiseTaskOverdue: async () => {
          raised();
          return true;
        },
      },
      { dueDate: '2020-01-01', overdueAfterMs: 0 },
    );
    await overdue;
    await handle.signal(taskDeletedSignal);
    assert.deepEqual(await handle.result(), {
      status: 'pending',
      dueDate: '2020-01-01',
      overdueRaisedFor: '2020-01-01',
      deleted: true,
    });
    assert.deepEqual(log, ['raiseTaskOverdue']);
  });
});
