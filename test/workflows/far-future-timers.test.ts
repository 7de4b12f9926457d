import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServices } from '../../src/services.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { ScriptedRecognizer } from '../helpers/scripted-recognizer.js';
import { timerStarted } from '../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../helpers/worker.js';

/**
 * The API takes any valid date for a task's due date and any future instant for a snooze, up to
 * 9999-12-31: thousands of years, past what a Go duration holds (292 years). The workflows' timers
 * must still start (Temporal caps a timer at 100 years) and the workflows keep working: no workflow
 * task fails on them, and the dates can still be changed.
 */
describe('far-future due dates and snoozes', () => {
  let api: TestApi;
  let org: TestOrg;
  let workers: Awaited<ReturnType<typeof startTestWorkers>>;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('far-future') });
    workers = await startTestWorkers(api.runtime, new ScriptedRecognizer(() => []));
    org = await createTestOrg(api.runtime);
  });
  after(async () => {
    await workers.stop();
    await api.close();
  });

  /** The workflow's timers as its history holds them, and any workflow task that failed. */
  const history = async (workflowId: string) => {
    const events = (await api.runtime.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    return {
      timerSeconds: events
        .filter((e) => e.timerStartedEventAttributes)
        .map((e) => Number(e.timerStartedEventAttributes!.startToFireTimeout!.seconds)),
      failedTasks: events.filter((e) => e.workflowTaskFailedEventAttributes).length,
    };
  };
  const YEARS_99 = 99 * 365 * 24 * 3600;

  it('a task due on 9999-12-31 waits on a timer, and its due date can still be moved', async () => {
    const created = await api.request('POST', '/tasks', {
      key: org.keys.write,
      body: { title: 'Far away', dueDate: '9999-12-31' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.id as string;
    await timerStarted(api.runtime.temporal.client, id);
    let h = await history(id);
    assert.equal(h.failedTasks, 0);
    assert.ok(h.timerSeconds[0]! > YEARS_99, `timer of ${h.timerSeconds[0]} s`);

    const moved = await api.request('PATCH', `/tasks/${id}`, { key: org.keys.write, body: { dueDate: '9999-12-30' } });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.data.dueDate, '9999-12-30');
    const read = await api.request('GET', `/tasks/${id}`, { key: org.keys.read });
    assert.equal(read.body.data.status, 'pending');
    h = await history(id);
    assert.equal(h.failedTasks, 0);
  });

  it('an alert snoozed until 9999-12-31 stays snoozed on a timer, and can be woken by hand', async () => {
    const em = api.runtime.orm.em.fork();
    const { id } = await em.transactional((tx) =>
      createServices(tx, { config: api.runtime.config }).alerts.raise(tx, {
        organisationId: org.id,
        type: 'analysis_failed',
        severity: 'warning',
        title: 'Far snooze',
        message: 'snoozed for a long time',
        sourceType: 'analysis',
        sourceId: 'an_far_future',
      }),
    );
    const snoozed = await api.request('PATCH', `/alerts/${id}`, {
      key: org.keys.write,
      body: { status: 'snoozed', snoozedUntil: '9999-12-31T00:00:00Z' },
    });
    assert.equal(snoozed.status, 200, JSON.stringify(snoozed.body));
    assert.equal(snoozed.body.data.snoozedUntil, '9999-12-31T00:00:00.000Z');
    await timerStarted(api.runtime.temporal.client, id);
    const h = await history(id);
    assert.equal(h.failedTasks, 0);
    assert.ok(h.timerSeconds[0]! > YEARS_99, `timer of ${h.timerSeconds[0]} s`);
    assert.equal((await api.request('GET', `/alerts/${id}`, { key: org.keys.read })).body.data.status, 'snoozed');

    const woken = await api.request('PATCH', `/alerts/${id}`, { key: org.keys.write, body: { status: 'unread' } });
    assert.equal(woken.status, 200, JSON.stringify(woken.body));
    assert.equal(woken.body.data.status, 'unread');
    assert.equal(woken.body.data.snoozedUntil, null);
  });
});
