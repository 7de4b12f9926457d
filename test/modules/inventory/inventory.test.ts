import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';

describe('inventory', () => {
  let api: TestApi;
  let org: TestOrg;
  let other: TestOrg;

  before(async () => {
    api = await startTestApi();
    [org, other] = await Promise.all([createTestOrg(api.runtime), createTestOrg(api.runtime)]);
  });
  after(() => api.close());

  it('creates, gets, updates (exact money), filters and deletes items', async () => {
    const created = await api.request('POST', '/inventory', {
      key: org.keys.write,
      body: {
        sku: 'COKE-330',
        brand: 'Coca-Cola',
        name: 'Coke 330ml',
        category: 'Beverages',
        expectedPrice: 1.29,
        currency: 'gbp',
        upc: '5449000000996',
        sizeValue: 330,
        sizeUnit: 'ml',
      },
    });
    assert.equal(created.status, 201);
    const item = created.body.data;
    assert.match(item.id, /^inv_/);
    assert.equal(item.expectedPrice, 1.29);
    assert.equal(item.currency, 'GBP');
    await api.request('POST', '/inventory', {
      key: org.keys.write,
      body: { sku: 'PEPSI-330', brand: 'Pepsi', name: 'Pepsi 330ml', category: 'Beverages' },
    });
    await api.request('POST', '/inventory', {
      key: org.keys.write,
      body: { sku: 'LAYS-50', brand: 'Lays', name: 'Lays 50g', category: 'Snacks' },
    });

    const byBrand = await api.request('GET', '/inventory?brand=coca-cola', { key: org.keys.read });
    assert.deepEqual(
      byBrand.body.data.map((i: any) => i.sku),
      ['COKE-330'],
    );
    const byCategory = await api.request('GET', '/inventory?category=Beverages', { key: org.keys.read });
    assert.deepEqual(byCategory.body.data.map((i: any) => i.sku).sort(), ['COKE-330', 'PEPSI-330']);
    const bySku = await api.request('GET', '/inventory?sku=LAYS-50', { key: org.keys.read });
    assert.equal(bySku.body.data.length, 1);

    const patched = await api.request('PATCH', `/inventory/${item.id}`, {
      key: org.keys.write,
      body: { expectedPrice: 0.1, name: 'Coca-Cola 330ml can' },
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.data.expectedPrice, 0.1);
    assert.ok(patched.body.data.updatedAt >= item.updatedAt);
    const bad = await api.request('PATCH', `/inventory/${item.id}`, {
      key: org.keys.write,
      body: { expectedPrice: 1.234 },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.details.fields[0].field, 'expectedPrice');
    const clash = await api.request('PATCH', `/inventory/${item.id}`, {
      key: org.keys.write,
      body: { sku: 'PEPSI-330' },
    });
    assert.equal(clash.status, 409);

    assert.equal((await api.request('GET', `/inventory/${item.id}`, { key: other.keys.read })).status, 404);
    assert.equal((await api.request('DELETE', `/inventory/${item.id}`, { key: other.keys.admin })).status, 404);
    assert.equal((await api.request('DELETE', `/inventory/${item.id}`, { key: org.keys.admin })).status, 200);
    assert.equal((await api.request('GET', `/inventory/${item.id}`, { key: org.keys.read })).status, 404);
  });

  it('upserts up to 1,000 items by sku in one request', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({
      sku: `BULK-${i}`,
      brand: 'Bulk',
      name: `Bulk ${i}`,
      expectedPrice: 2.49,
    }));
    const first = await api.request('POST', '/inventory/bulk', { key: org.keys.write, body: { items } });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.data.created, 1000);
    assert.equal(first.body.data.updated, 0);

    const again = await api.request('POST', '/inventory/bulk', {
      key: org.keys.write,
      body: {
        items: [
          { sku: 'BULK-0', brand: 'Bulk', name: 'Renamed' },
          { sku: 'BULK-NEW', brand: 'Bulk', name: 'New' },
        ],
      },
    });
    assert.equal(again.body.data.created, 1);
    assert.equal(again.body.data.updated, 1);
    const renamed = again.body.data.items.find((i: any) => i.sku === 'BULK-0');
    assert.equal(renamed.id, first.body.data.items.find((i: any) => i.sku === 'BULK-0').id, 'an update keeps the id');
    const got = await api.request('GET', `/inventory/${renamed.id}`, { key: org.keys.read });
    assert.equal(got.body.data.name, 'Renamed');
    assert.equal(got.body.data.expectedPrice, null);

    const tooMany = await api.request('POST', '/inventory/bulk', {
      key: org.keys.write,
      body: { items: [...items, { sku: 'X', brand: 'b', name: 'n' }] },
    });
    assert.equal(tooMany.status, 422);
    const dup = await api.request('POST', '/inventory/bulk', {
      key: org.keys.write,
      body: { items: [items[0], items[0]] },
    });
    assert.equal(dup.status, 422);
    assert.equal(dup.body.error.details.fields[0].field, 'items[1].sku');
  });
});
