import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { createCommands } from '../../../src/commands.js';
import { createServices } from '../../../src/services.js';
import { taskQueues } from '../../../src/temporal/contracts/task-queues.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { forgetKilledWorker, timerStarted, waitFor } from '../../helpers/wait.js';
import { uniquePrefix } from '../../helpers/worker.js';
import { spawnWorker, stopProcess, workerPolling } from '../../helpers/worker-processes.js';

const today = new Date().toISOString().slice(0, 10);

describe('task timers across a killed worker', () => {
  let api: TestApi;
  let org: TestOrg;
  const prefix = uniquePrefix('task-durability');
  const children: ChildProcess[] = [];

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: prefix });
    org = await createTestOrg(api.runtime);
    const first = spawnWorker(prefix);
    children.push(first.child);
    await workerPolling(api.runtime.temporal.client, api.runtime.config.TEMPORAL_NAMESPACE, taskQueues(prefix).tasks);
  });
  after(async () => {
    for (const c of children) await stopProcess(c);
    await api.close();
  });

  it('tasks waiting for their due dates keep their timers when the worker dies', async () => {
    // The due time is set once everything slow is behind (the API's start and the organisation took
    // longer than a fixed 8 s before the kill on a loaded host): from here to the kill it is three
    // creations and their first workflow tasks. The API's commands took TASK_OVERDUE_AFTER_MS at its
    // start, so the tasks are made by commands with the due time in their configuration, as the
    // POST /tasks route makes them (test/modules/tasks/tasks.test.ts covers the route).
    const dueAt = Date.now() + 8_000;
    const cfg = {
      ...api.runtime.config,
      TASK_OVERDUE_AFTER_MS: dueAt - Date.parse(`${today}T00:00:00Z`),
    };
    const { tasks } = createCommands(createServices(api.runtime.orm.em.fork(), { config: cfg }), {
      client: api.runtime.temporal.client,
      config: cfg,
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await tasks.create(org.id, { title: `Timer ${i}`, dueDate: today })).id);
    // The timers exist once the workflows have run their first task on the first worker.
    for (const id of ids) await timerStarted(api.runtime.temporal.client, id);
    await stopProcess(children[0]!);
    await forgetKilledWorker(api.runtime.temporal.client, api.runtime.config.TEMPORAL_NAMESPACE, ids);
    assert.ok(Date.now() < dueAt, 'the worker died before the due time');

    const { child: second } = spawnWorker(prefix);
    children.push(second);
    const alerts = await waitFor(
      'an overdue alert per task',
      async () => {
        const list = (await api.request('GET', '/alerts?type=task_overdue&limit=100', { key: org.keys.read })).body
          .data;
        return ids.every((id) => list.some((a: any) => a.sourceId === id)) && list;
      },
      90_000,
      500,
    );
    for (const id of ids) assert.equal(alerts.filter((a: any) => a.sourceId === id).length, 1);
    assert.ok(Date.now() >= dueAt, 'raised at the due time, not before');
  });
});
