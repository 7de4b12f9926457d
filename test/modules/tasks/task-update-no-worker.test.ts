import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { uniquePrefix } from '../../helpers/worker.js';

/**
 * A task change is a workflow Update, decided by a worker. With no worker running, Temporal holds
 * the Update until one comes back, and PATCH held the client's request open with it, without end.
 * It is bounded now: past TASK_UPDATE_WAIT_MS, a 503 that says what may still happen.
 */
describe('PATCH /tasks/{id} while no worker runs', () => {
  let api: TestApi;
  let org: TestOrg;

  before(async () => {
    // Task queues nobody polls: the API starts the task's workflow, no worker ever runs it.
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('no-worker'), TASK_UPDATE_WAIT_MS: 1500 });
    org = await createTestOrg(api.runtime);
  });
  after(async () => {
    await api.close();
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After once the wait is over, and the task is unchanged', async () => {
    const created = await api.request('POST', '/tasks', { key: org.keys.write, body: { title: 'Nobody home' } });
    assert.equal(created.status, 201);
    const id = created.body.data.id as string;
    const patched = await api.request('PATCH', `/tasks/${id}`, {
      key: org.keys.write,
      body: { status: 'in_progress' },
    });
    assert.equal(patched.status, 503);
    assert.equal(patched.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.match(patched.body.error.message, /may still be applied/);
    assert.ok(patched.headers.get('retry-after'));
    const read = await api.request('GET', `/tasks/${id}`, { key: org.keys.read });
    assert.equal(read.body.data.status, 'pending');
  });
});
