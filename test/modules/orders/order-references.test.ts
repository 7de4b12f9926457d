import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg } from '../../helpers/fixtures.js';

describe('order accountId is checked like every other reference', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it("another organisation's account, or none, is a 422 on accountId; one's own is stored", async () => {
    const org = await createTestOrg(api.runtime);
    const other = await createTestOrg(api.runtime);
    const theirs = (
      await api.request('POST', '/accounts', { key: other.keys.write, body: { name: 'Theirs', type: 'supplier' } })
    ).body.data.id;
    const mine = (
      await api.request('POST', '/accounts', { key: org.keys.write, body: { name: 'Mine', type: 'supplier' } })
    ).body.data.id;
    for (const accountId of [theirs, 'acc_nobody']) {
      const res = await api.request('POST', '/orders', { key: org.keys.write, body: { supplierName: 'X', accountId } });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.error.details.fields[0].field, 'accountId');
      assert.equal(res.body.error.details.fields[0].code, 'unknown_reference');
    }
    const ok = await api.request('POST', '/orders', {
      key: org.keys.write,
      body: { supplierName: 'X', accountId: mine },
    });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.data.accountId, mine);
  });
});
