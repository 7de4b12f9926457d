import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../../helpers/image-host.js';
import { product, ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

/**
 * Alert titles are built from catalogue names ("Out of stock: " + name) inside a task activity;
 * a name at its column maximum (255) must not make the title overflow the alerts.title column.
 */
describe('task alerts built from names at their column maximum', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let stopWorkers: () => Promise<void>;
  const longMissing = `Missing ${'m'.repeat(247)}`;
  const longPriced = `Priced ${'p'.repeat(248)}`;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('task-titles') });
    // The shelf shows the priced item (found by barcode) at a price far from the expected one.
    const recognizer = new ScriptedRecognizer(() => [
      product({ brand: 'Various', description: 'Priced', upc: '5000000000017', price: 9.99, units: 2 }),
    ]);
    stopWorkers = (await startTestWorkers(api.runtime, recognizer)).stop;
    org = await createTestOrg(api.runtime, { credits: 5 });
    host = await startImageHost({ '/shelf.png': { body: await pngOfWidth(64) } });
  });
  after(async () => {
    await stopWorkers();
    await host.close();
    await api.close();
  });

  it('an out-of-stock item with a 255-character name: the alert is raised, the task completes, PATCH /tasks/{id} answers', async () => {
    assert.equal(longMissing.length, 255);
    assert.equal(longPriced.length, 255);
    const ids: string[] = [];
    for (const [sku, upc, name] of [
      ['LONG-MISSING', '5000000000024', longMissing],
      ['LONG-PRICED', '5000000000017', longPriced],
    ] as const) {
      const res = await api.request('POST', '/inventory', {
        key: org.keys.write,
        body: { sku, upc, name, brand: 'Various', expectedPrice: 1 },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(res.body.data.id);
    }
    const created = await api.request('POST', '/tasks', {
      key: org.keys.write,
      body: { title: 'Long names', expectationIds: ids },
    });
    assert.equal(created.status, 201);
    const taskId = created.body.data.id;
    const analysis = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/shelf.png'), taskId },
    });
    assert.equal(analysis.status, 202);

    const alertsOf = async (type: string) =>
      (await api.request('GET', `/alerts?type=${type}&limit=100`, { key: org.keys.read })).body.data.filter(
        (a: any) => a.metadata?.taskId === taskId,
      );
    const [outOfStock] = await waitFor('the out_of_stock alert', async () => {
      const found = await alertsOf('out_of_stock');
      return found.length > 0 && found;
    });
    assert.equal(outOfStock.metadata.sku, 'LONG-MISSING');
    // Cut to the column's 255 characters, the last one an ellipsis.
    assert.equal([...outOfStock.title].length, 255);
    assert.ok(outOfStock.title.startsWith(`Out of stock: ${longMissing.slice(0, 200)}`), outOfStock.title);
    assert.ok(outOfStock.title.endsWith('…'));
    assert.ok(outOfStock.message.includes(longMissing), 'the message (text) keeps the whole name');

    const [mismatch] = await alertsOf('price_mismatch');
    assert.ok(mismatch, 'the price mismatch raised in the same step is there too');
    assert.equal([...mismatch.title].length, 255);
    assert.ok(mismatch.title.startsWith('Price mismatch: Priced ppp') && mismatch.title.endsWith('…'));

    const done = await waitFor('the task to complete', async () => {
      const t = (await api.request('GET', `/tasks/${taskId}`, { key: org.keys.read })).body.data;
      return t.status === 'completed' && t;
    });
    assert.equal(done.complianceScore, 50);
    assert.equal(done.generationId, analysis.body.data.id);

    const patched = await api.request('PATCH', `/tasks/${taskId}`, {
      key: org.keys.write,
      body: { notes: 'restock ordered' },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.data.notes, 'restock ordered');
    assert.equal(patched.body.data.status, 'completed');
  });
});
