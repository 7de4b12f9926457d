import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi, type TestResponse } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { uniquePrefix } from '../helpers/worker.js';

/** A 422 naming exactly these fields with the text issue: the database never saw the request. */
function refusedText(res: TestResponse, fields: string[]) {
  assert.equal(res.status, 422, res.text);
  assert.equal(res.body.error.code, 'VALIDATION_FAILED');
  const named = (res.body.error.details.fields as { field: string; code?: string }[])
    .filter((f) => f.code === 'invalid_character')
    .map((f) => f.field)
    .sort();
  assert.deepEqual(named, [...fields].sort());
}

// PostgreSQL refuses U+0000 in text and jsonb, and a lone surrogate in jsonb (JSON.stringify writes
// it as an escape jsonb rejects): each reached the database and came back as a 500.
describe('text the database cannot store as sent is a 422 on its field, never a 500', () => {
  let api: TestApi;
  let org: TestOrg;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('validation') });
    org = await createTestOrg(api.runtime, { credits: 10 });
  });
  after(() => api.close());

  it('U+0000 in a body value or key, a query parameter or a path parameter', async () => {
    refusedText(await api.request('POST', '/places', { key: org.keys.write, body: { title: 'Tesco\u0000' } }), [
      'title',
    ]);
    refusedText(
      await api.request('POST', '/analyses', {
        key: org.keys.write,
        body: { imageUrl: 'https://example.com/a.jpg', metadata: { 'ai\u0000sle': '4', shelf: '\u0000' } },
      }),
      ['metadata.ai\u0000sle', 'metadata.shelf'],
    );
    refusedText(
      await api.request('POST', '/orders', {
        key: org.keys.write,
        body: { supplierName: 'S', items: [{ quantity: 1, unitPrice: 1, name: 'Beans\u0000' }] },
      }),
      ['items[0].name'],
    );
    refusedText(await api.request('GET', '/places?search=a%00b', { key: org.keys.read }), ['query.search']);
    refusedText(await api.request('GET', '/inventory?brand=%00', { key: org.keys.read }), ['query.brand']);
    refusedText(await api.request('GET', '/places/pl_%00', { key: org.keys.read }), ['path.id']);
    refusedText(await api.request('PATCH', '/tasks/%00', { key: org.keys.write, body: { title: 't' } }), ['path.id']);
    // Deep inside a value no schema takes, only the first levels are looked at: the answer stays
    // small (it named every NUL down 60,000 levels, megabytes of paths, in seconds).
    const deep = await api.request('POST', '/places', {
      key: org.keys.write,
      rawBody: `{"title":${'["\\u0000",'.repeat(60_000)}1${']'.repeat(60_000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(deep.status, 422);
    assert.ok(deep.text.length < 5_000, `${deep.text.length} characters`);
    // Nothing was charged for the refused analysis.
    const usage = await api.request('GET', '/usage', { key: org.keys.read });
    assert.equal(usage.body.data.credits.remaining, 10);
  });

  it('a lone UTF-16 surrogate is refused; whole astral characters and emoji sequences are stored as sent', async () => {
    refusedText(
      await api.request('POST', '/tasks', {
        key: org.keys.write,
        rawBody: '{"title":"Chilled \\ud83d drinks"}',
        headers: { 'content-type': 'application/json' },
      }),
      ['title'],
    );
    refusedText(
      await api.request('POST', '/analyses', {
        key: org.keys.write,
        rawBody: '{"imageUrl":"https://example.com/a.jpg","externalId":"\\udfff","metadata":{"k":"x\\ud800"}}',
        headers: { 'content-type': 'application/json' },
      }),
      ['externalId', 'metadata.k'],
    );

    const title = 'Chilled 🥤 drinks 👨‍👩‍👧‍👦';
    const task = await api.request('POST', '/tasks', { key: org.keys.write, body: { title } });
    assert.equal(task.status, 201, task.text);
    assert.equal(task.body.data.title, title);
    const analysis = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: 'https://example.com/a.jpg', externalId: '🛒', metadata: { '🏷️': '😀' } },
    });
    assert.equal(analysis.status, 202, analysis.text);
    const read = await api.request('GET', `/analyses/${analysis.body.data.id}`, { key: org.keys.read });
    assert.equal(read.body.data.externalId, '🛒');
    assert.deepEqual(read.body.data.metadata, { '🏷️': '😀' });
  });
});
