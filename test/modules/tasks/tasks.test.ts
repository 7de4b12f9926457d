import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../../src/db/sql.js';
import { createServices } from '../../../src/services.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../../helpers/image-host.js';
import { startReceiver } from '../../helpers/receiver.js';
import { product, ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { recordHistory } from '../../helpers/record-history.js';
import { waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

const today = new Date().toISOString().slice(0, 10);
/** Due dates of today fall due a few seconds after the suite starts: no long waits. */
const overdueAfterMs = Date.now() + 4000 - Date.parse(`${today}T00:00:00Z`);

describe('tasks as workflows, compliance and alerts', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let stopWorkers: () => Promise<void>;
  let placeId: string;
  let fieldWorker: string;
  let secondWorker: string;
  const items: string[] = [];

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('tasks'), TASK_OVERDUE_AFTER_MS: overdueAfterMs });
    // Width 70: the shelf shows two of the three expected items (found by barcode).
    const recognizer = new ScriptedRecognizer(({ width }) =>
      width === 70
        ? [
            product({
              brand: 'Brightwell',
              description: 'Orange Juice 1L',
              upc: '5012345678900',
              price: 2.49,
              units: 3,
            }),
            product({ brand: 'Nordic Dairy', description: 'Milk 2L', upc: '5098765432109', price: 1.5, units: 2 }),
          ]
        : [],
    );
    stopWorkers = (await startTestWorkers(api.runtime, recognizer)).stop;
    org = await createTestOrg(api.runtime, { credits: 20 });
    host = await startImageHost({ '/shelf.png': { body: await pngOfWidth(70) } });
    placeId = (await api.request('POST', '/places', { key: org.keys.write, body: { title: 'Holborn' } })).body.data.id;
    // Tasks are assigned to members of the organisation (assignedTo is checked like every reference).
    const members = createServices(api.runtime.orm.em.fork()).members;
    fieldWorker = (await members.add(org.id, { email: 'fw1@shop.example', name: 'Field worker', role: 'tasker' })).id;
    secondWorker = (await members.add(org.id, { email: 'fw2@shop.example', name: 'Second', role: 'tasker' })).id;
    for (const [sku, upc, name, price] of [
      ['OJ-1L', '5012345678900', 'Orange Juice 1L', 2.49],
      ['MILK-2L', '5098765432109', 'Milk 2L', 1.2],
      ['OATS-500', '5011111111111', 'Oats 500g', 1.8],
    ] as const) {
      const res = await api.request('POST', '/inventory', {
        key: org.keys.write,
        body: { sku, upc, name, brand: 'Various', expectedPrice: price },
      });
      items.push(res.body.data.id);
    }
  });
  after(async () => {
    await stopWorkers();
    await host.close();
    await api.close();
  });

  const task = async (id: string) => (await api.request('GET', `/tasks/${id}`, { key: org.keys.read })).body.data;

  it('full lifecycle: 3 expectations, an analysis finds 2: completed, 66.7, grade D (decisions.md), generationId, one out_of_stock, events in order', async () => {
    const receiver = await startReceiver();
    await api.request('POST', '/webhooks', {
      key: org.keys.admin,
      body: { url: receiver.url, events: ['task.created', 'task.updated', 'task.completed'] },
    });
    const created = await api.request('POST', '/tasks', {
      key: org.keys.write,
      body: {
        title: 'Chilled aisle check',
        placeId,
        assignedTo: fieldWorker,
        notes: 'front of store',
        expectationIds: items,
      },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.data.status, 'pending');
    assert.equal(created.body.data.placeName, 'Holborn');
    const taskId = created.body.data.id;
    assert.match(taskId, /^tsk_/);

    const analysis = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/shelf.png'), taskId, placeId },
    });
    assert.equal(analysis.status, 202);
    const done = await waitFor('the task to complete', async () => {
      const t = await task(taskId);
      return t.status === 'completed' && t;
    });
    assert.equal(done.complianceScore, 66.7);
    // decisions.md: D >= 60. (The text says F; decisions.md is the contract.)
    assert.equal(done.complianceGrade, 'D');
    assert.equal(done.generationId, analysis.body.data.id);
    assert.ok(done.completedAt);
    assert.deepEqual(done.expectationIds, items);

    // The task's alerts are raised in the transaction after its completion (task.service.ts,
    // completeFromAnalysis): the completed task can be read a moment before them.
    const alerts = await waitFor('the task alerts', async () => {
      const found = (await api.request('GET', `/alerts?type=out_of_stock`, { key: org.keys.read })).body.data.filter(
        (a: any) => a.sourceId === taskId,
      );
      return found.length > 0 && found;
    });
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0].metadata.sku, 'OATS-500');
    const low = (await api.request('GET', `/alerts?type=low_compliance`, { key: org.keys.read })).body.data.filter(
      (a: any) => a.sourceId === taskId,
    );
    assert.equal(low.length, 1, 'grade D is below the default C threshold');
    const mismatch = (await api.request('GET', `/alerts?type=price_mismatch`, { key: org.keys.read })).body.data;
    assert.ok(
      mismatch.some((a: any) => a.metadata.sku === 'MILK-2L'),
      'milk at 1.50 vs 1.20 expected',
    );
    assert.ok(!mismatch.some((a: any) => a.metadata.sku === 'OJ-1L'));

    const events = await sql<{ type: string; data: any }>(
      api.runtime.orm.em.fork(),
      `select type, data from events where data->>'taskId' = ? order by created_at, id`,
      [taskId],
    );
    const types = events.map((e) => e.type);
    assert.equal(types[0], 'task.created');
    assert.equal(types.at(-1), 'task.completed');
    assert.ok(types.slice(1, -1).length >= 1 && types.slice(1, -1).every((t) => t === 'task.updated'));
    assert.deepEqual(events[1]!.data.updatedFields, ['status'], 'the submitted analysis moved it to in_progress');
    assert.equal(events[1]!.data.status, 'in_progress');
    assert.deepEqual(events.at(-1)!.data, {
      taskId,
      title: 'Chilled aisle check',
      placeId,
      generationId: analysis.body.data.id,
      complianceScore: 66.7,
    });
    await waitFor('the webhook to get every task event', async () => receiver.received.length === events.length);
    assert.deepEqual(receiver.received.map((r) => r.headers['x-service-event']).sort(), [...types].sort());
    await receiver.close();
  });

  it('a task already final when its analysis completes records generationId and the score, and keeps its status', async () => {
    const created = await api.request('POST', '/tasks', {
      key: org.keys.write,
      body: { title: 'Done by hand', placeId, expectationIds: items },
    });
    const taskId = created.body.data.id;
    const byHand = await api.request('PATCH', `/tasks/${taskId}`, {
      key: org.keys.write,
      body: { status: 'completed' },
    });
    assert.equal(byHand.status, 200);
    const completedAt = byHand.body.data.completedAt;
    const analysis = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/shelf.png'), taskId, placeId },
    });
    const recorded = await waitFor('the analysis recorded on the final task', async () => {
      const t = await task(taskId);
      return t.generationId === analysis.body.data.id && t;
    });
    assert.equal(recorded.status, 'completed');
    assert.equal(recorded.completedAt, completedAt, 'completed by hand, not again');
    assert.equal(recorded.complianceScore, 66.7);
    assert.equal(recorded.complianceGrade, 'D');
    // How test/fixtures/histories/analysis-on-final-task.json was recorded (README there).
    await recordHistory(api.runtime.temporal.client, analysis.body.data.id, process.env.RECORD_ANALYSIS_HISTORY);
  });

  it('refuses every transition the state machine forbids with 409 and the allowed targets', async () => {
    const id = (await api.request('POST', '/tasks', { key: org.keys.write, body: { title: 'Transitions' } })).body.data
      .id;
    const patch = (status: string) => api.request('PATCH', `/tasks/${id}`, { key: org.keys.write, body: { status } });
    assert.equal((await patch('in_progress')).status, 200);
    const back = await patch('pending');
    assert.equal(back.status, 409);
    assert.equal(back.body.error.code, 'INVALID_TRANSITION');
    assert.deepEqual(back.body.error.details, {
      from: 'in_progress',
      to: 'pending',
      allowed: ['completed', 'cancelled'],
    });
    assert.equal((await patch('cancelled')).status, 200);
    // How test/fixtures/histories/task-two-changes-*.json were recorded (README there).
    await recordHistory(api.runtime.temporal.client, id, process.env.RECORD_TASK_HISTORY);
    for (const to of ['pending', 'in_progress', 'completed']) {
      const res = await patch(to);
      assert.equal(res.status, 409, to);
      assert.deepEqual(res.body.error.details.allowed, []);
    }
    const fields = await api.request('PATCH', `/tasks/${id}`, {
      key: org.keys.write,
      body: { notes: 'still editable' },
    });
    assert.equal(fields.status, 200, 'a final task keeps accepting field edits');
    assert.equal(fields.body.data.notes, 'still editable');
  });

  it('two concurrent completions produce one completion', async () => {
    const id = (await api.request('POST', '/tasks', { key: org.keys.write, body: { title: 'Race' } })).body.data.id;
    const [a, b] = await Promise.all(
      [1, 2].map(() => api.request('PATCH', `/tasks/${id}`, { key: org.keys.write, body: { status: 'completed' } })),
    );
    // The update handler runs them one after the other: the second finds the task completed, and
    // setting a status to its current value changes nothing (no event, same completedAt).
    assert.deepEqual([a!.status, b!.status], [200, 200]);
    assert.equal(a!.body.data.completedAt, b!.body.data.completedAt);
    const [row] = await sql<{ n: number }>(
      api.runtime.orm.em.fork(),
      `select count(*)::int as n from events where type = 'task.completed' and data->>'taskId' = ?`,
      [id],
    );
    assert.equal(row!.n, 1);
    const t = await task(id);
    assert.equal(t.status, 'completed');
    assert.match(t.completedBy, /^key_/, 'completedBy is the API key that completed it');
  });

  it('a task past its due date raises exactly one task_overdue alert; a completed one none', async () => {
    const open = (
      await api.request('POST', '/tasks', {
        key: org.keys.write,
        body: { title: 'Due today', dueDate: today, placeId },
      })
    ).body.data.id;
    const finished = (
      await api.request('POST', '/tasks', { key: org.keys.write, body: { title: 'Done in time', dueDate: today } })
    ).body.data.id;
    await api.request('PATCH', `/tasks/${finished}`, { key: org.keys.write, body: { status: 'completed' } });
    const alert = await waitFor(
      'the overdue alert',
      async () => {
        const list = (await api.request('GET', '/alerts?type=task_overdue', { key: org.keys.read })).body.data;
        return list.find((a: any) => a.sourceId === open);
      },
      30_000,
    );
    assert.equal(alert.placeId, placeId);
    assert.equal(alert.metadata.dueDate, today);
    await new Promise((r) => setTimeout(r, 1500));
    const all = (await api.request('GET', '/alerts?type=task_overdue&limit=100', { key: org.keys.read })).body.data;
    assert.equal(all.filter((a: any) => a.sourceId === open).length, 1);
    assert.equal(all.filter((a: any) => a.sourceId === finished).length, 0);
  });

  it('validates tasks and keeps them per organisation', async () => {
    const other = await createTestOrg(api.runtime);
    const theirItem = (
      await api.request('POST', '/inventory', { key: other.keys.write, body: { sku: 'X', brand: 'b', name: 'n' } })
    ).body.data.id;
    const bad = await api.request('POST', '/tasks', {
      key: org.keys.write,
      body: { title: 'x', expectationIds: [items[0], theirItem], dueDate: '2026-13-01' },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.details.fields[0].field, 'dueDate');
    const bad2 = await api.request('POST', '/tasks', {
      key: org.keys.write,
      body: { title: 'x', expectationIds: [items[0], theirItem] },
    });
    assert.equal(bad2.body.error.details.fields[0].field, 'expectationIds[1]');
    const foreign = await api.request('POST', '/tasks', {
      key: org.keys.write,
      body: { title: 'x', assignedTo: 'usr_nobody' },
    });
    assert.equal(foreign.status, 422);
    assert.equal(foreign.body.error.details.fields[0].field, 'assignedTo');
    assert.equal(foreign.body.error.details.fields[0].code, 'unknown_reference');
    const mine = (
      await api.request('POST', '/tasks', {
        key: org.keys.write,
        body: { title: 'Mine', placeId, assignedTo: secondWorker },
      })
    ).body.data.id;
    assert.equal((await api.request('GET', `/tasks/${mine}`, { key: other.keys.read })).status, 404);
    assert.equal(
      (await api.request('PATCH', `/tasks/${mine}`, { key: other.keys.write, body: { title: 'x' } })).status,
      404,
    );
    const byAssignee = await api.request('GET', `/tasks?assignedTo=${secondWorker}`, { key: org.keys.read });
    assert.deepEqual(
      byAssignee.body.data.map((t: any) => t.id),
      [mine],
    );
    assert.equal(byAssignee.body.data[0].notes, undefined, 'notes are detail only');
    const byStatus = await api.request('GET', `/tasks?status=cancelled&placeId=${placeId}`, { key: org.keys.read });
    assert.equal(byStatus.body.data.length, 0);
    assert.equal((await api.request('DELETE', `/tasks/${mine}`, { key: org.keys.write })).status, 403);
    assert.equal((await api.request('DELETE', `/tasks/${mine}`, { key: org.keys.admin })).status, 200);
    assert.equal((await api.request('GET', `/tasks/${mine}`, { key: org.keys.read })).status, 404);
    await waitFor(
      'the deleted task workflow to end',
      async () => (await api.runtime.temporal.client.workflow.getHandle(mine).describe()).status.name === 'COMPLETED',
    );
  });

  it('alerts: read, acknowledge, pin, snooze back to unread on a durable timer; 404 across organisations', async () => {
    const list = (await api.request('GET', '/alerts', { key: org.keys.read })).body.data;
    const alert = list[0];
    assert.ok(alert);
    const read = await api.request('PATCH', `/alerts/${alert.id}`, {
      key: org.keys.write,
      body: { status: 'acknowledged', isPinned: true },
    });
    assert.equal(read.body.data.status, 'acknowledged');
    assert.equal(read.body.data.isPinned, true);
    assert.match(read.body.data.actionedBy, /^key_/);
    assert.ok(read.body.data.actionedAt);
    const bad = await api.request('PATCH', `/alerts/${alert.id}`, { key: org.keys.write, body: { status: 'snoozed' } });
    assert.equal(bad.status, 422);
    const snoozed = await api.request('PATCH', `/alerts/${alert.id}`, {
      key: org.keys.write,
      body: { status: 'snoozed', snoozeDurationMs: 2000 },
    });
    assert.equal(snoozed.body.data.status, 'snoozed');
    assert.ok(Date.parse(snoozed.body.data.snoozedUntil) > Date.now());
    await waitFor(
      'the snooze to end',
      async () =>
        (await api.request('GET', `/alerts/${alert.id}`, { key: org.keys.read })).body.data.status === 'unread',
      20_000,
    );
    const other = await createTestOrg(api.runtime);
    assert.equal((await api.request('GET', `/alerts/${alert.id}`, { key: other.keys.read })).status, 404);
    const filtered = await api.request('GET', `/alerts?severity=warning&status=unread&placeId=${placeId}`, {
      key: org.keys.read,
    });
    assert.ok(filtered.body.data.length >= 1, 'the unsnoozed alert is listed');
    assert.ok(
      filtered.body.data.every((a: any) => a.severity === 'warning' && a.status === 'unread' && a.placeId === placeId),
    );
  });
});
