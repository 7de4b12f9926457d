import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../src/db/sql.js';
import { request, startTestApi, type TestApi } from '../helpers/api.js';
import { startApiProcess } from '../helpers/api-process.js';
import { createTestOrg } from '../helpers/fixtures.js';
import { uniquePrefix } from '../helpers/worker.js';

describe('rate limits, idempotency, usage and API keys across two API processes', () => {
  let a: TestApi;
  let b: { child: ChildProcess; base: string };

  // 90 requests at once over two pools of 10: on a loaded host some wait past the default 800 ms for a
  // connection and get the designed 503 (config.ts; a 500 before database-down.test.ts's last test),
  // which is not what these tests count.
  const ACQUIRE_MS = 30_000;
  before(async () => {
    a = await startTestApi({
      TASK_QUEUE_PREFIX: uniquePrefix('limits'),
      TRUST_PROXY: true,
      DATABASE_ACQUIRE_TIMEOUT_MS: ACQUIRE_MS,
    });
    b = await startApiProcess({ TRUST_PROXY: 'true', DATABASE_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_MS) });
  });
  after(async () => {
    b.child.kill('SIGTERM');
    await a.close();
  });

  const on =
    (i: number) =>
    (method: string, path: string, opts: Parameters<TestApi['request']>[2] = {}) =>
      i % 2 === 0 ? a.request(method, path, opts) : request(b.base, method, path, opts);

  it('exactly the plan limit of concurrent reads over both processes succeed; the rest get 429 with Retry-After; the window rolls on', async () => {
    const org = await createTestOrg(a.runtime, { plan: 'free' });
    const results = await Promise.all(
      Array.from({ length: 90 }, (_, i) => on(i)('GET', '/places', { key: org.keys.read })),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    const tally: Record<number, number> = {};
    for (const r of results) tally[r.status] = (tally[r.status] ?? 0) + 1;
    assert.equal(ok.length, 60, `free plan: 60 reads per 60 s; statuses ${JSON.stringify(tally)}`);
    assert.equal(limited.length, 30);
    for (const r of limited) {
      assert.equal(r.body.error.code, 'RATE_LIMITED');
      assert.equal(r.body.error.details.limit, 60);
      assert.equal(r.body.error.details.window, '60s');
      const retryAfter = Number(r.headers.get('retry-after'));
      // One-second counters: a request counts for 60 to 61 s (decisions.md).
      assert.ok(retryAfter >= 55 && retryAfter <= 61, `Retry-After ${retryAfter}`);
      assert.equal(r.body.error.details.retryAfter, retryAfter);
      assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
    }
    for (const r of ok) {
      assert.equal(r.headers.get('x-ratelimit-limit'), '60');
      assert.ok(Number(r.headers.get('x-ratelimit-reset')) > Date.now() / 1000);
    }
    // Writes are their own category.
    assert.equal((await a.request('POST', '/projects', { key: org.keys.write, body: { name: 'p' } })).status, 201);

    // The window rolls on: rather than sleep through it, move this key's counters 61 s into the past
    // (what the store would see a minute later) and ask again through the other process.
    const em = a.runtime.orm.em.fork();
    const moved = await sql<{ bucket: string }>(
      em,
      `update rate_limit_windows set seconds = array(select s - 61 from unnest(seconds) as s)
        where bucket in (select 'key:' || id || ':reads' from api_keys where organisation_id = ?) returning bucket`,
      [org.id],
    );
    assert.equal(moved.length, 1, "the read key's window");
    const again = await request(b.base, 'GET', '/places', { key: org.keys.read });
    assert.equal(again.status, 200, 'after the window passes requests succeed again');
    assert.equal(again.headers.get('x-ratelimit-remaining'), '59', 'with the whole window free again');
  });

  it('a batch takes one analysis slot per image, all or nothing', async () => {
    const org = await createTestOrg(a.runtime, { plan: 'free', credits: 20 });
    const img = { imageUrl: 'https://images.example.com/shelf.jpg' };
    const tooMany = await a.request('POST', '/analyses/batch', {
      key: org.keys.write,
      body: { images: Array(6).fill(img) },
    });
    assert.equal(tooMany.status, 429, 'free plan: 5 analyses per 60 s');
    assert.equal((await a.runtime.services.credits.balance(org.id)).remaining, 20, 'a refused batch consumes nothing');
    const fits = await a.request('POST', '/analyses/batch', {
      key: org.keys.write,
      body: { images: Array(4).fill(img) },
    });
    assert.equal(fits.status, 202);
    assert.equal(fits.headers.get('x-ratelimit-remaining'), '1');
    assert.equal(
      (await a.request('POST', '/analyses/batch', { key: org.keys.write, body: { images: Array(2).fill(img) } }))
        .status,
      429,
    );
    assert.equal((await a.request('POST', '/analyses', { key: org.keys.write, body: img })).status, 202);
  });

  it('the same POST sent 10 times at once with one Idempotency-Key creates one analysis and charges once', async () => {
    const org = await createTestOrg(a.runtime, { credits: 10 });
    const body = { imageUrl: 'https://images.example.com/shelf.jpg', externalId: 'idem-1' };
    const headers = { 'idempotency-key': 'submit-idem-1' };
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => on(i)('POST', '/analyses', { key: org.keys.write, body, headers })),
    );
    const created = results.filter((r) => r.status === 202 && r.headers.get('x-idempotent-replayed') !== 'true');
    const replays = results.filter((r) => r.status === 202 && r.headers.get('x-idempotent-replayed') === 'true');
    const inProgress = results.filter((r) => r.status === 409);
    assert.equal(created.length, 1);
    assert.equal(created.length + replays.length + inProgress.length, 10);
    for (const r of inProgress) assert.equal(r.body.error.code, 'IDEMPOTENCY_IN_PROGRESS');
    for (const r of replays) assert.deepEqual(r.body, created[0]!.body);
    const [rows] = await sql<{ n: number }>(
      a.runtime.orm.em.fork(),
      `select count(*)::int as n from analyses where organisation_id = ? and external_id = 'idem-1'`,
      [org.id],
    );
    assert.equal(rows!.n, 1);
    assert.equal((await a.runtime.services.credits.balance(org.id)).remaining, 9);

    const replay = await a.request('POST', '/analyses', { key: org.keys.write, body, headers });
    assert.equal(replay.headers.get('x-idempotent-replayed'), 'true');
    assert.deepEqual(replay.body, created[0]!.body);
    const reused = await a.request('POST', '/analyses', {
      key: org.keys.write,
      body: { ...body, externalId: 'other' },
      headers,
    });
    assert.equal(reused.status, 422);
    assert.equal(reused.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
    const otherPath = await a.request('POST', '/places', { key: org.keys.write, body: { title: 'x' }, headers });
    assert.equal(otherPath.body.error.code, 'IDEMPOTENCY_KEY_REUSED');

    // Client errors are kept and replayed too; the key belongs to the organisation.
    const bad1 = await a.request('POST', '/places', {
      key: org.keys.write,
      body: {},
      headers: { 'idempotency-key': 'bad-1' },
    });
    const bad2 = await a.request('POST', '/places', {
      key: org.keys.write,
      body: {},
      headers: { 'idempotency-key': 'bad-1' },
    });
    assert.equal(bad1.status, 422);
    assert.equal(bad2.status, 422);
    assert.equal(bad2.headers.get('x-idempotent-replayed'), 'true');
    const other = await createTestOrg(a.runtime);
    assert.equal(
      (
        await a.request('POST', '/places', {
          key: other.keys.write,
          body: { title: 'x' },
          headers: { 'idempotency-key': 'bad-1' },
        })
      ).status,
      201,
    );
  });

  it('a revoked key is refused on its next request on both processes; keys are managed through the API', async () => {
    const org = await createTestOrg(a.runtime);
    const created = await a.request('POST', '/api-keys', {
      key: org.keys.admin,
      body: { role: 'read', name: 'dashboard' },
    });
    assert.equal(created.status, 201);
    assert.match(created.body.data.key, /^svc_live_[0-9a-f]{64}$/);
    const key = created.body.data.key;
    assert.equal((await a.request('GET', '/places', { key })).status, 200);
    assert.equal((await request(b.base, 'GET', '/places', { key })).status, 200);
    const list = await a.request('GET', '/api-keys', { key: org.keys.admin });
    assert.ok(list.body.data.length >= 2 && list.body.data.every((k: any) => k.key === undefined));
    assert.ok(!JSON.stringify(list.body).includes(key));
    assert.ok(list.body.data.find((k: any) => k.id === created.body.data.id && k.prefix === key.slice(0, 15)));

    const revoked = await a.request('DELETE', `/api-keys/${created.body.data.id}`, { key: org.keys.admin });
    assert.equal(revoked.body.data.status, 'revoked');
    for (const base of [a.baseUrl, b.base]) {
      const res = await request(base, 'GET', '/places', { key });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'INVALID_API_KEY');
    }

    const second = await a.request('POST', '/api-keys', { key: org.keys.admin, body: { role: 'write' } });
    const rotated = await a.request('POST', `/api-keys/${second.body.data.id}/rotate`, {
      key: org.keys.admin,
      body: { gracePeriodSeconds: 3600 },
    });
    assert.equal(rotated.status, 200);
    assert.equal(rotated.body.data.role, 'write');
    assert.equal(
      (await a.request('GET', '/places', { key: second.body.data.key })).status,
      200,
      'old key works during the grace period',
    );
    assert.equal((await a.request('GET', '/places', { key: rotated.body.data.key })).status, 200);
    const now = await a.request('POST', `/api-keys/${rotated.body.data.id}/rotate`, { key: org.keys.admin, body: {} });
    assert.equal(
      (await a.request('GET', '/places', { key: rotated.body.data.key })).status,
      401,
      'no grace: revoked at once',
    );
    assert.equal((await a.request('GET', '/places', { key: now.body.data.key })).status, 200);
    assert.equal((await a.request('POST', '/api-keys', { key: org.keys.write, body: { role: 'admin' } })).status, 403);
  });

  it('usage reports batch size, credits from the ledger and live windows', async () => {
    const org = await createTestOrg(a.runtime, { plan: 'growth', credits: 30 });
    await a.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: 'https://images.example.com/a.jpg' },
    });
    const res = await a.request('GET', '/usage', { key: org.keys.write });
    assert.equal(res.status, 200);
    const u = res.body.data;
    assert.equal(u.maxBatchSize, 30, 'growth: 100 per batch, but 30 analyses a minute');
    assert.equal(u.plan.maxBatchSize, 100);
    assert.deepEqual(u.credits, { remaining: 29, usedThisPeriod: 1, plan: 29, payg: 0 });
    assert.equal(u.plan.tier, 'growth');
    assert.ok(Date.parse(u.plan.periodEnd) > Date.now());
    assert.equal(u.rateLimits.analyses.limit, 30);
    assert.equal(u.rateLimits.analyses.remaining, 29);
    assert.equal(u.rateLimits.reads.limit, 300);
    assert.equal(u.rateLimits.reads.remaining, 299, 'this request counted');
    assert.equal(u.rateLimits.writes.remaining, 80);
  });

  it('failed authentications are limited per client address', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.77' };
    const statuses: number[] = [];
    for (let i = 0; i < 32; i++)
      statuses.push((await a.request('GET', '/places', { key: `svc_live_${'1'.repeat(64)}`, headers })).status);
    assert.deepEqual(statuses.slice(0, 30), Array(30).fill(401));
    assert.deepEqual(statuses.slice(30), [429, 429]);
    const other = await a.request('GET', '/places', {
      key: `svc_live_${'1'.repeat(64)}`,
      headers: { 'x-forwarded-for': '203.0.113.78' },
    });
    assert.equal(other.status, 401, 'another address is not affected');
  });
});
