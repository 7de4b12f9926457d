import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';

describe('orders', () => {
  let api: TestApi;
  let org: TestOrg;
  let other: TestOrg;
  let storeId: string;
  let itemId: string;

  before(async () => {
    // 50 creations below queue on the organisation's counter row with one pool of 10 connections: on a
    // loaded host the last would wait past the 800 ms default and get the designed 503, which is not
    // what this file checks.
    api = await startTestApi({ DATABASE_ACQUIRE_TIMEOUT_MS: 60_000 });
    [org, other] = await Promise.all([createTestOrg(api.runtime), createTestOrg(api.runtime)]);
    storeId = (await api.request('POST', '/places', { key: org.keys.write, body: { title: 'Store' } })).body.data.id;
    itemId = (
      await api.request('POST', '/inventory', {
        key: org.keys.write,
        body: { sku: 'BEANS-415', brand: 'Heinz', name: 'Beans 415g' },
      })
    ).body.data.id;
  });
  after(() => api.close());

  it('computes exact totals, including a half-cent tax, and fills lines from inventory', async () => {
    const res = await api.request('POST', '/orders', {
      key: org.keys.write,
      body: {
        supplierName: 'Brightwell Foods',
        orderDate: '2026-11-20',
        currency: 'gbp',
        storeId,
        taxRate: 20,
        taxLabel: 'VAT',
        items: [
          { quantity: 3, unitPrice: 0.35, taxPercent: 7.5, sku: 'GUM', name: 'Gum' }, // 1.05 + 0.07875 -> 0.08
          { quantity: 2.5, unitPrice: 19.99, inventoryItemId: itemId }, // 49.975 -> 49.98 + 9.995 -> 10.00
          { quantity: 1, unitPrice: 0.1, taxPercent: 5, name: 'Bag' }, // 0.10 + 0.005 -> 0.01
        ],
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const o = res.body.data;
    assert.match(o.id, /^ord_/);
    assert.match(o.orderNumber, /^PO-\d{6}$/);
    assert.equal(o.currency, 'GBP');
    assert.deepEqual(
      o.items.map((l: any) => [l.sku, l.name, l.taxAmount, l.totalPrice]),
      [
        ['GUM', 'Gum', 0.08, 1.13],
        ['BEANS-415', 'Beans 415g', 10, 59.98],
        [null, 'Bag', 0.01, 0.11],
      ],
    );
    assert.equal(o.items[1].expectationId, itemId);
    assert.equal(o.items[1].taxPercent, 20, "the order's rate by default");
    assert.equal(o.subtotal, 51.13);
    assert.equal(o.tax, 10.09);
    assert.equal(o.total, 61.22);
  });

  it('50 concurrent creations get 50 distinct consecutive order numbers', async () => {
    const fresh = await createTestOrg(api.runtime);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        api.request('POST', '/orders', { key: fresh.keys.write, body: { supplierName: 'X' } }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      results.map(() => 201),
      results.find((r) => r.status !== 201)?.text,
    );
    const numbers = results.map((r) => Number(r.body.data.orderNumber.slice(3))).sort((a, b) => a - b);
    assert.deepEqual(
      numbers,
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });

  it('moves through the state machine; refuses the rest with 409; lines only while draft or pending', async () => {
    const id = (
      await api.request('POST', '/orders', {
        key: org.keys.write,
        body: { supplierName: 'Nordic', items: [{ quantity: 1, unitPrice: 2, name: 'Milk' }] },
      })
    ).body.data.id;
    const patch = (body: object) => api.request('PATCH', `/orders/${id}`, { key: org.keys.write, body });
    const relined = await patch({ items: [{ quantity: 2, unitPrice: 2, name: 'Milk' }] });
    assert.equal(relined.body.data.total, 4);
    const skip = await patch({ status: 'shipped' });
    assert.equal(skip.status, 409);
    assert.deepEqual(skip.body.error.details, { from: 'draft', to: 'shipped', allowed: ['pending', 'cancelled'] });
    for (const status of ['pending', 'confirmed']) assert.equal((await patch({ status })).status, 200);
    const late = await patch({ items: [] });
    assert.equal(late.status, 409);
    assert.equal(late.body.error.code, 'CONFLICT');
    assert.equal(
      (await patch({ status: 'shipped', expectedDeliveryDate: '2026-12-01' })).body.data.expectedDeliveryDate,
      '2026-12-01',
    );
    const delivered = await patch({ status: 'delivered' });
    assert.ok(delivered.body.data.actualDeliveryDate);
    assert.equal((await patch({ status: 'cancelled' })).status, 409);
    const badCreate = await api.request('POST', '/orders', { key: org.keys.write, body: { status: 'shipped' } });
    assert.equal(badCreate.status, 422);
    assert.equal(badCreate.body.error.details.fields[0].field, 'status');
  });

  it('filters, validates, and keeps orders per organisation', async () => {
    const list = await api.request('GET', '/orders?supplierName=brightWELL&status=draft', { key: org.keys.read });
    assert.ok(list.body.data.length >= 1 && list.body.data.every((o: any) => o.supplierName === 'Brightwell Foods'));
    assert.equal((await api.request('GET', `/orders?storeId=${storeId}`, { key: org.keys.read })).body.data.length, 1);
    const badStore = await api.request('POST', '/orders', {
      key: org.keys.write,
      body: { storeId: 'pl_nope', items: [{ quantity: 1.0001, unitPrice: 1.234 }] },
    });
    assert.equal(badStore.status, 422);
    assert.deepEqual(badStore.body.error.details.fields.map((f: any) => f.field).sort(), [
      'items[0]',
      'items[0].quantity',
      'items[0].unitPrice',
    ]);
    const id = list.body.data[0].id;
    assert.equal((await api.request('GET', `/orders/${id}`, { key: other.keys.read })).status, 404);
    assert.equal((await api.request('DELETE', `/orders/${id}`, { key: org.keys.write })).status, 403);
    assert.equal((await api.request('DELETE', `/orders/${id}`, { key: other.keys.admin })).status, 404);
    assert.equal((await api.request('DELETE', `/orders/${id}`, { key: org.keys.admin })).status, 200);
    assert.equal((await api.request('GET', `/orders/${id}`, { key: org.keys.read })).status, 404);
  });
});
