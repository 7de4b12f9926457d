import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi, type TestResponse } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { uniquePrefix } from '../helpers/worker.js';

function assertRateHeaders(res: TestResponse, limit: number, what: string) {
  assert.equal(res.headers.get('x-ratelimit-limit'), String(limit), `${what}: X-RateLimit-Limit`);
  assert.ok(res.headers.get('x-ratelimit-remaining') !== null, `${what}: X-RateLimit-Remaining`);
  assert.ok(Number(res.headers.get('x-ratelimit-reset')) > Date.now() / 1000 - 1, `${what}: X-RateLimit-Reset`);
}

describe('contract gaps: rate-limit headers on every answer, webhook tests, key pagination, usable batch size', () => {
  let api: TestApi;
  let org: TestOrg;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('contract') });
    org = await createTestOrg(api.runtime, { plan: 'growth', credits: 10 });
  });
  after(async () => {
    await api.close();
  });

  it('401, 413, 415 and malformed-JSON 422 answers carry the rate-limit headers', async () => {
    const malformed = await api.request('POST', '/places', {
      key: org.keys.write,
      rawBody: '{"title": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 422);
    assertRateHeaders(malformed, 80, 'malformed JSON');
    const textBody = await api.request('POST', '/places', {
      key: org.keys.write,
      rawBody: 'title=x',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(textBody.status, 415);
    assertRateHeaders(textBody, 80, '415');
    const huge = await api.request('POST', '/places', {
      key: org.keys.write,
      rawBody: JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(huge.status, 413);
    assertRateHeaders(huge, 80, '413');
    const batch = await api.request('POST', '/analyses/batch', {
      key: org.keys.write,
      rawBody: '{"images": [',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(batch.status, 422);
    assertRateHeaders(batch, 30, 'malformed batch (analyses category)');
    const unauthenticated = await api.request('GET', '/places', {
      key: `svc_live_${'3'.repeat(64)}`,
      headers: { 'x-forwarded-for': '192.0.2.77' },
    });
    assert.equal(unauthenticated.status, 401);
    assertRateHeaders(unauthenticated, 30, '401 (failed authentications of this address)');
  });

  it('a test event to a disabled webhook is a 409 in the error envelope', async () => {
    const hook = await api.request('POST', '/webhooks', {
      key: org.keys.admin,
      body: { url: 'https://hooks.example.com/x', events: ['*'] },
    });
    await api.request('PATCH', `/webhooks/${hook.body.data.id}`, { key: org.keys.admin, body: { status: 'disabled' } });
    const res = await api.request('POST', `/webhooks/${hook.body.data.id}/test`, { key: org.keys.admin });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'CONFLICT');
  });

  it('GET /api-keys pages like every other list', async () => {
    const fresh = await createTestOrg(api.runtime);
    for (let i = 0; i < 4; i++)
      await api.request('POST', '/api-keys', { key: fresh.keys.admin, body: { role: 'read', name: `k${i}` } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: TestResponse = await api.request('GET', `/api-keys?limit=3${cursor ? `&cursor=${cursor}` : ''}`, {
        key: fresh.keys.admin,
      });
      assert.equal(page.status, 200, page.text);
      assert.ok(page.body.pagination, 'pagination');
      assert.ok(page.body.data.length <= 3);
      seen.push(...page.body.data.map((k: { id: string }) => k.id));
      cursor = page.body.pagination.hasMore ? page.body.pagination.cursor : null;
    } while (cursor);
    assert.equal(seen.length, 7, 'the three keys of the fixture and four more');
    assert.equal(new Set(seen).size, 7);
  });

  it("usage's maxBatchSize is what a batch can really hold, and a batch of that size is accepted", async () => {
    const free = await createTestOrg(api.runtime, { plan: 'free', credits: 50 });
    const usage = await api.request('GET', '/usage', { key: free.keys.write });
    assert.equal(usage.body.data.maxBatchSize, 5, 'free: 20 per batch, but 5 analyses a minute');
    assert.equal(usage.body.data.plan.maxBatchSize, 20);
    const images = Array.from({ length: usage.body.data.maxBatchSize }, (_, i) => ({
      imageUrl: `https://images.example.com/${i}.jpg`,
    }));
    const accepted = await api.request('POST', '/analyses/batch', { key: free.keys.write, body: { images } });
    assert.equal(accepted.status, 202, accepted.text);
  });
});
