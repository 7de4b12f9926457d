import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../src/db/sql.js';
import { DATABASE_REFUSED, NEEDS_ATTENTION } from '../../src/temporal/contracts/durable-steps.js';
import { SA } from '../../src/temporal/contracts/search-attributes.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../helpers/image-host.js';
import { ScriptedRecognizer } from '../helpers/scripted-recognizer.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../helpers/worker.js';

/**
 * Whatever the database refuses inside a task step (here a real CHECK-like refusal, raised by a
 * trigger on the real alerts table for one SKU only), the step fails for good, the task's workflow
 * records it where an operator looks, and goes on: the task completes and PATCH answers.
 */
describe('a task step the database refuses', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let stopWorkers: () => Promise<void>;
  const sku = `REFUSED-${Date.now()}`;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('task-refusals') });
    const em = api.runtime.orm.em.fork();
    await sql(
      em,
      `create or replace function refuse_probe_alert() returns trigger language plpgsql as $$
      begin
        if new.metadata->>'sku' = '${sku}' then raise exception 'refused by the test' using errcode = '23514'; end if;
        return new;
      end $$`,
    );
    await sql(
      em,
      `create trigger refuse_probe_alert before insert on alerts for each row execute function refuse_probe_alert()`,
    );
    stopWorkers = (await startTestWorkers(api.runtime, new ScriptedRecognizer(() => []))).stop;
    org = await createTestOrg(api.runtime, { credits: 5 });
    host = await startImageHost({ '/empty.png': { body: await pngOfWidth(66) } });
  });
  after(async () => {
    const em = api.runtime.orm.em.fork();
    await sql(em, `drop trigger if exists refuse_probe_alert on alerts`);
    await sql(em, `drop function if exists refuse_probe_alert()`);
    await stopWorkers();
    await host.close();
    await api.close();
  });

  it('the out_of_stock insert is refused: the workflow records it, needs_attention, ends with the task completed, and PATCH answers', async () => {
    const item = await api.request('POST', '/inventory', {
      key: org.keys.write,
      body: { sku, name: 'Refused item', brand: 'Probe' },
    });
    assert.equal(item.status, 201);
    const taskId = (
      await api.request('POST', '/tasks', {
        key: org.keys.write,
        body: { title: 'Refused alert', expectationIds: [item.body.data.id] },
      })
    ).body.data.id;
    const analysis = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/empty.png'), taskId },
    });
    assert.equal(analysis.status, 202);

    const handle = api.runtime.temporal.client.workflow.getHandle(taskId);
    await waitFor('the task workflow to end', async () => (await handle.describe()).status.name === 'COMPLETED');
    const state = await handle.result();
    assert.equal(state.status, 'completed', 'the workflow read the completed task back and ended');
    const description = await handle.describe();
    assert.deepEqual(description.typedSearchAttributes.get(SA.status), NEEDS_ATTENTION);
    const history = await handle.fetchHistory();
    const failed = (history.events ?? [])
      .map((e) => e.activityTaskFailedEventAttributes?.failure)
      .filter((f) => f != null);
    assert.equal(failed.length, 1, 'one attempt: not retried');
    assert.equal(failed[0]!.applicationFailureInfo?.type, DATABASE_REFUSED);
    assert.equal(failed[0]!.applicationFailureInfo?.nonRetryable, true);
    assert.match(failed[0]!.message ?? '', /SQLSTATE 23514.*table alerts/);
    assert.doesNotMatch(failed[0]!.message ?? '', /insert into/i);

    const task = (await api.request('GET', `/tasks/${taskId}`, { key: org.keys.read })).body.data;
    assert.equal(task.status, 'completed');
    assert.equal(task.complianceScore, 0);
    const patched = await api.request('PATCH', `/tasks/${taskId}`, {
      key: org.keys.write,
      body: { notes: 'alert to be raised by hand' },
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.data.notes, 'alert to be raised by hand');
  });
});
