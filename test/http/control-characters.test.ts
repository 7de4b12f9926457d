import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServices } from '../../src/services.js';
import { startTestApi, type TestApi, type TestResponse } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { uniquePrefix } from '../helpers/worker.js';

/** A 422 in the spec's error shape naming exactly this field with the text issue. */
function refused(res: TestResponse, field: string) {
  assert.equal(res.status, 422, res.text);
  assert.equal(res.body.error.code, 'VALIDATION_FAILED');
  assert.equal(typeof res.body.error.message, 'string');
  const fields = res.body.error.details.fields as { field: string; code?: string; message: string }[];
  assert.deepEqual(
    fields.filter((f) => f.code === 'invalid_character').map((f) => f.field),
    [field],
    res.text,
  );
}

// Issue 36: an API key named with a line break and an escape sequence forged a row of the operator
// CLI's `key:list` and retitled the operator's terminal.
const LINE_BREAK = 'sync\nkey_01forged  admin  svc_live_0000…  active';
const ESCAPE = 'sync\u001b]0;pwned\u0007';

describe('names and labels with control characters are a 422 on their field; free text keeps its lines', () => {
  let api: TestApi;
  let org: TestOrg;
  let userId: string;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('control-characters') });
    org = await createTestOrg(api.runtime, { credits: 10 });
    userId = (
      await createServices(api.runtime.orm.em.fork()).members.add(org.id, {
        name: 'Sam',
        email: 'sam@control.example',
        role: 'member',
      })
    ).id;
  });
  after(() => api.close());

  it('an API key name with "\\n" or "\\x1b]0;pwned\\x07" is refused and nothing is stored', async () => {
    for (const name of [LINE_BREAK, ESCAPE, 'sync\tkey', 'sync\u009b2J', 'sync\u007f', 'sy\rnc'])
      refused(await api.request('POST', '/api-keys', { key: org.keys.admin, body: { role: 'read', name } }), 'name');
    const keys = (await api.request('GET', '/api-keys', { key: org.keys.admin })).body.data as { name: string }[];
    assert.deepEqual(keys.map((k) => k.name).sort(), ['admin key', 'read key', 'write key']);
    const ok = await api.request('POST', '/api-keys', {
      key: org.keys.admin,
      body: { role: 'read', name: 'Zoë’s “sync” — 東京' },
    });
    assert.equal(ok.status, 201, ok.text);
  });

  it('every other stored name and label refuses them too', async () => {
    const { admin, write } = org.keys;
    for (const bad of [LINE_BREAK, ESCAPE]) {
      const cases: [string, string, string, unknown, string][] = [
        [
          'POST',
          '/webhooks',
          admin,
          { url: 'https://hooks.example.com/x', events: ['*'], description: bad },
          'description',
        ],
        ['POST', '/places', write, { title: bad }, 'title'],
        ['POST', '/places', write, { title: 'Tesco', address: bad }, 'address'],
        ['POST', '/projects', write, { name: bad }, 'name'],
        ['PATCH', `/members/${userId}`, admin, { name: bad }, 'name'],
        ['POST', '/members/invite', admin, { email: 'kim@control.example', phone: bad }, 'phone'],
        ['POST', '/tasks', write, { title: bad }, 'title'],
        ['POST', '/inventory', write, { sku: 'S-1', brand: 'B', name: bad }, 'name'],
        ['POST', '/inventory', write, { sku: bad, brand: 'B', name: 'N' }, 'sku'],
        ['POST', '/accounts', write, { name: bad, type: 'supplier' }, 'name'],
        ['POST', '/orders', write, { supplierName: bad }, 'supplierName'],
        ['POST', '/orders', write, { items: [{ quantity: 1, name: bad, unitPrice: 1 }] }, 'items[0].name'],
        ['POST', '/analyses', write, { imageUrl: 'https://example.com/a.jpg', externalId: bad }, 'externalId'],
      ];
      for (const [method, path, key, body, field] of cases)
        refused(await api.request(method, path, { key, body }), field);
    }
  });

  it('free text (notes, descriptions) keeps line breaks and tabs, and refuses every other control character', async () => {
    const notes = 'Aisle 4:\n\tchilled drinks\r\nAisle 5';
    const task = await api.request('POST', '/tasks', {
      key: org.keys.write,
      body: { title: 'Check chilled drinks', notes, description: notes },
    });
    assert.equal(task.status, 201, task.text);
    const stored = await api.request('GET', `/tasks/${task.body.data.id}`, { key: org.keys.read });
    assert.equal(stored.body.data.notes, notes);
    refused(
      await api.request('POST', '/tasks', { key: org.keys.write, body: { title: 'T', notes: `a${ESCAPE}` } }),
      'notes',
    );
    refused(
      await api.request('POST', '/projects', { key: org.keys.write, body: { name: 'P', description: 'a\u009b2J' } }),
      'description',
    );
  });
});
