import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { waitFor } from '../../helpers/wait.js';
import { uniquePrefix } from '../../helpers/worker.js';
import { spawnWorker, stopProcess } from '../../helpers/worker-processes.js';

const today = new Date().toISOString().slice(0, 10);

describe('task timers across a killed worker', () => {
  let api: TestApi;
  let org: TestOrg;
  const prefix = uniquePrefix('task-durability');
  const children: ChildProcess[] = [];
  let dueAt: number;

  before(async () => {
    // Long enough to start a worker, let the workflows reach their timers and kill it (asserted below).
    dueAt = Date.now() + 15_000;
    api = await startTestApi({
      TASK_QUEUE_PREFIX: prefix,
      TASK_OVERDUE_AFTER_MS: dueAt - Date.parse(`${today}T00:00:00Z`),
    });
    org = await createTestOrg(api.runtime);
  });
  after(async () => {
    for (const c of children) await stopProcess(c);
    await api.close();
  });

  it('tasks waiting for their due dates keep their timers when the worker dies', async () => {
    const { child: first } = spawnWorker(prefix);
    children.push(first);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await api.request('POST', '/tasks', { key: org.keys.write, body: { title: `Timer ${i}`, dueDate: today } }))
          .body.data.id,
      );
    // The timers exist once the workflows have run their first task on the first worker.
    await waitFor(
      'the workflows to be waiting',
      async () => {
        for (const id of ids) {
          const d = await api.runtime.temporal.client.workflow.getHandle(id).describe();
          if (d.historyLength < 5) return false;
        }
        return true;
      },
      30_000,
    );
    await stopProcess(first);
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
