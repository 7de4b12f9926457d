import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';

describe('accounts', () => {
  let api: TestApi;
  let org: TestOrg;
  let other: TestOrg;

  before(async () => {
    api = await startTestApi();
    [org, other] = await Promise.all([createTestOrg(api.runtime), createTestOrg(api.runtime)]);
  });
  after(() => api.close());

  it('creates, lists with filters and search, gets, updates and deletes accounts', async () => {
    const created = await api.request('POST', '/accounts', {
      key: org.keys.write,
      body: {
        name: 'Brightwell Foods',
        type: 'supplier',
        contactName: 'Ana Ruiz',
        contactEmail: 'ana@brightwell.example',
        website: 'https://brightwell.example',
      },
    });
    assert.equal(created.status, 201);
    assert.match(created.body.data.id, /^acc_/);
    assert.equal(created.body.data.status, 'active');
    await api.request('POST', '/accounts', {
      key: org.keys.write,
      body: { name: 'Nordic Dairy', type: 'brand', status: 'inactive' },
    });

    const suppliers = await api.request('GET', '/accounts?type=supplier', { key: org.keys.read });
    assert.deepEqual(
      suppliers.body.data.map((a: any) => a.name),
      ['Brightwell Foods'],
    );
    const inactive = await api.request('GET', '/accounts?status=inactive', { key: org.keys.read });
    assert.deepEqual(
      inactive.body.data.map((a: any) => a.name),
      ['Nordic Dairy'],
    );
    const byEmail = await api.request('GET', '/accounts?search=ANA@', { key: org.keys.read });
    assert.equal(byEmail.body.data.length, 1);

    const id = created.body.data.id;
    const patched = await api.request('PATCH', `/accounts/${id}`, {
      key: org.keys.write,
      body: { contactPhone: '+44 20 7946 0000', status: 'archived' },
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.data.status, 'archived');
    assert.equal(patched.body.data.type, 'supplier');
    assert.ok(patched.body.data.updatedAt >= created.body.data.updatedAt);

    const badEmail = await api.request('PATCH', `/accounts/${id}`, {
      key: org.keys.write,
      body: { contactEmail: 'not-an-email', website: 'nope' },
    });
    assert.equal(badEmail.status, 422);
    assert.deepEqual(badEmail.body.error.details.fields.map((f: any) => f.field).sort(), ['contactEmail', 'website']);
    const badType = await api.request('POST', '/accounts', {
      key: org.keys.write,
      body: { name: 'x', type: 'wholesaler' },
    });
    assert.equal(badType.body.error.details.fields[0].field, 'type');

    assert.equal((await api.request('GET', `/accounts/${id}`, { key: other.keys.read })).status, 404);
    assert.equal(
      (await api.request('PATCH', `/accounts/${id}`, { key: other.keys.write, body: { name: 'x' } })).status,
      404,
    );
    assert.equal((await api.request('DELETE', `/accounts/${id}`, { key: org.keys.write })).status, 403);
    assert.equal((await api.request('DELETE', `/accounts/${id}`, { key: org.keys.admin })).status, 200);
    assert.equal((await api.request('GET', `/accounts/${id}`, { key: org.keys.read })).status, 404);
  });
});
