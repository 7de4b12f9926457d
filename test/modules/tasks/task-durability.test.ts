import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { config } from '../../../src/config.js';
import { createTemporalClient } from '../../../src/temporal/client.js';
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
  let dueAt: number;

  before(async () => {
    // The first worker is up before the due time is set: what follows until the kill takes a second or two.
    const first = spawnWorker(prefix);
    children.push(first.child);
    const cfg = config();
    const temporal = createTemporalClient(cfg.TEMPORAL_ADDRESS, cfg.TEMPORAL_NAMESPACE);
    await workerPolling(temporal.client, cfg.TEMPORAL_NAMESPACE, taskQueues(prefix).tasks);
    await temporal.connection.close();
    // Long enough to start the API, let the workflows reach their timers and kill the worker (asserted below).
    dueAt = Date.now() + 8_000;
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
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await api.request('POST', '/tasks', { key: org.keys.write, body: { title: `Timer ${i}`, dueDate: today } }))
          .body.data.id,
      );
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
