import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { uniquePrefix } from '../helpers/worker.js';

/** An address of exactly `length` characters that zod's e-mail check accepts. */
function emailOf(length: number): string {
  const domain = '.example';
  const local = 'a'.repeat(60);
  return `${local}@${'b'.repeat(length - local.length - 1 - domain.length)}${domain}`;
}

describe('request fields at their documented maximum are stored; one past is a 422, never a 500', () => {
  let api: TestApi;
  let org: TestOrg;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('field-limits') });
    org = await createTestOrg(api.runtime);
  });
  after(async () => {
    await api.close();
  });

  it('inventory: every string at its maximum is stored as sent; a name of 256 is refused', async () => {
    const item = {
      sku: 's'.repeat(100),
      brand: 'b'.repeat(200),
      name: 'n'.repeat(255),
      description: 'd'.repeat(2000),
      category: 'c'.repeat(100),
      subcategory: 'u'.repeat(100),
      sizeValue: 1_000_000,
      sizeUnit: 'm'.repeat(20),
      expectedPrice: 9_999_999_999.99,
      currency: 'GBP',
      upc: '12345678901234',
    };
    const created = await api.request('POST', '/inventory', { key: org.keys.write, body: item });
    assert.equal(created.status, 201, created.text);
    const read = await api.request('GET', `/inventory/${created.body.data.id}`, { key: org.keys.read });
    for (const [k, v] of Object.entries(item)) assert.equal(read.body.data[k], v, k);

    const tooLong = await api.request('POST', '/inventory', {
      key: org.keys.write,
      body: { ...item, sku: 'other', name: 'n'.repeat(256) },
    });
    assert.equal(tooLong.status, 422);
    assert.equal(tooLong.body.error.details.fields[0].field, 'name');
    const bulk = await api.request('POST', '/inventory/bulk', {
      key: org.keys.write,
      body: { items: [{ ...item, sku: 'bulk-1', name: 'n'.repeat(256) }] },
    });
    assert.equal(bulk.status, 422);
    assert.equal(
      (
        await api.request('POST', '/inventory', {
          key: org.keys.write,
          body: { ...item, sku: 'u2', upc: '123456789012345' },
        })
      ).status,
      422,
    );
  });

  it('e-mail addresses of 255 characters are stored (accounts, invitations); 256 is refused', async () => {
    const at255 = emailOf(255);
    assert.equal(at255.length, 255);
    const account = await api.request('POST', '/accounts', {
      key: org.keys.write,
      body: { name: 'Acme', type: 'supplier', contactEmail: at255 },
    });
    assert.equal(account.status, 201, account.text);
    assert.equal(account.body.data.contactEmail, at255);
    const tooLong = await api.request('POST', '/accounts', {
      key: org.keys.write,
      body: { name: 'Acme', type: 'supplier', contactEmail: emailOf(256) },
    });
    assert.equal(tooLong.status, 422);
    assert.equal(tooLong.body.error.details.fields[0].field, 'contactEmail');

    const invite = await api.request('POST', '/members/invite', { key: org.keys.admin, body: { email: at255 } });
    assert.equal(invite.status, 201, invite.text);
    const tooLongInvite = await api.request('POST', '/members/invite', {
      key: org.keys.admin,
      body: { email: emailOf(256) },
    });
    assert.equal(tooLongInvite.status, 422);
  });

  it('order lines: a name of 255 is stored, 256 refused; totals past numeric(14,2) are a 422 on the line', async () => {
    const ok = await api.request('POST', '/orders', {
      key: org.keys.write,
      body: { supplierName: 'X', items: [{ name: 'l'.repeat(255), quantity: 1, unitPrice: 1 }] },
    });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.data.items[0].name, 'l'.repeat(255));
    const long = await api.request('POST', '/orders', {
      key: org.keys.write,
      body: { supplierName: 'X', items: [{ name: 'l'.repeat(256), quantity: 1, unitPrice: 1 }] },
    });
    assert.equal(long.status, 422);
    assert.equal(long.body.error.details.fields[0].field, 'items[0].name');

    const huge = await api.request('POST', '/orders', {
      key: org.keys.write,
      body: { supplierName: 'X', items: [{ name: 'big', quantity: 1_000_000, unitPrice: 9_999_999_999.99 }] },
    });
    assert.equal(huge.status, 422, huge.text);
    assert.equal(huge.body.error.code, 'VALIDATION_FAILED');
    assert.equal(huge.body.error.details.fields[0].field, 'items[0]');
    // The largest single line that fits is accepted and stored exactly.
    const largest = await api.request('POST', '/orders', {
      key: org.keys.write,
      body: { supplierName: 'X', items: [{ name: 'max', quantity: 99.999, unitPrice: 9_999_999_999.99 }] },
    });
    assert.equal(largest.status, 201, largest.text);
    assert.equal(largest.body.data.total, 999_989_999_999);
    // Many lines that each fit but sum past the column.
    const many = Array.from({ length: 20 }, (_, i) => ({
      name: `l${i}`,
      quantity: 99.999,
      unitPrice: 9_999_999_999.99,
    }));
    const summed = await api.request('POST', '/orders', {
      key: org.keys.write,
      body: { supplierName: 'X', items: many },
    });
    assert.equal(summed.status, 422);
    assert.equal(summed.body.error.details.fields[0].field, 'items');
    const draft = await api.request('POST', '/orders', { key: org.keys.write, body: { supplierName: 'X' } });
    const patched = await api.request('PATCH', `/orders/${draft.body.data.id}`, {
      key: org.keys.write,
      body: { items: many },
    });
    assert.equal(patched.status, 422);
  });
});
