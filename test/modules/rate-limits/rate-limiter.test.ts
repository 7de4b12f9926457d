import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { RateLimiter } from '../../../src/modules/rate-limits/rate-limiter.js';
import { RedisWindows } from '../../../src/modules/rate-limits/redis-windows.js';
import { request, startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg } from '../../helpers/fixtures.js';
import { startApiProcess } from '../../helpers/api-process.js';
import { uniquePrefix } from '../../helpers/worker.js';

/** This machine's Redis (the README's test prerequisites); the PostgreSQL store needs nothing extra. */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/**
 * A window whose first take came after `since` (this host's clock, which PostgreSQL and Redis here
 * share) opens again at its first second + 61 s, so a refusal answered by now says at least
 * 60 s less the time since then, and never more than 61. Not a fixed 55: on a loaded host the takes
 * before the refusal alone can take seconds (CI met 5.4 s for the 60 below).
 */
function assertRetryAfter(retryAfter: number, since: number, what: string) {
  const least = 60 - Math.ceil((Date.now() - since) / 1000);
  assert.ok(retryAfter >= least && retryAfter <= 61, `${what}: Retry-After ${retryAfter} (${least} to 61)`);
}

for (const store of ['postgres', 'redis'] as const) {
  describe(`rate limits in ${store}: exact across two API processes`, () => {
    let a: TestApi;
    let b: ChildProcess;
    let bBase: string;
    const env: Record<string, string> = store === 'redis' ? { REDIS_URL } : {};

    before(async () => {
      a = await startTestApi({
        TASK_QUEUE_PREFIX: uniquePrefix(`rl-${store}`),
        // Client addresses from X-Forwarded-For, so a test's failures never count against 127.0.0.1.
        TRUST_PROXY: true,
        ...(store === 'redis' ? { REDIS_URL } : {}),
      });
      ({ child: b, base: bBase } = await startApiProcess(env));
    });
    after(async () => {
      b.kill('SIGTERM');
      await a.close();
    });

    it('one key over both processes: the (limit+1)-th request in the window is refused, on either process', async () => {
      const org = await createTestOrg(a.runtime, { plan: 'free' });
      const send = (i: number) =>
        i % 2 === 0
          ? a.request('GET', '/places', { key: org.keys.read })
          : request(bBase, 'GET', '/places', { key: org.keys.read });
      const since = Date.now();
      const first = await Promise.all(Array.from({ length: 60 }, (_, i) => send(i)));
      assert.deepEqual(
        first.map((r) => r.status),
        Array(60).fill(200),
      );
      assert.deepEqual(
        first.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y),
        Array.from({ length: 60 }, (_, i) => i),
      );
      for (const i of [0, 1]) {
        const refused = await send(i);
        assert.equal(refused.status, 429, `the 61st on process ${i === 0 ? 'A' : 'B'}`);
        assertRetryAfter(Number(refused.headers.get('retry-after')), since, `the 61st on process ${i}`);
      }
    });

    it('an address past its failed-authentication budget is refused before its key is looked up; a batch takes its slots once its body is read', async () => {
      const org = await createTestOrg(a.runtime, { plan: 'free', credits: 50 });
      // A /64 of its own each run: Redis keeps its windows across test runs.
      const net = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:${store === 'redis' ? 1 : 2}`;
      const headers = { 'x-forwarded-for': `${net}::1` };
      const images = (n: number) =>
        Array.from({ length: n }, (_, i) => ({ imageUrl: `https://images.example.com/${i}.jpg` }));
      // Free: 5 analyses a minute. A batch of 6 is refused whole, a batch of 2 takes 2.
      const six = await a.request('POST', '/analyses/batch', {
        key: org.keys.write,
        body: { images: images(6) },
        headers,
      });
      assert.equal(six.status, 429, six.text);
      assert.equal(six.body.error.details.limit, 5);
      const two = await a.request('POST', '/analyses/batch', {
        key: org.keys.write,
        body: { images: images(2) },
        headers,
      });
      assert.equal(two.status, 202, two.text);
      assert.equal(two.headers.get('x-ratelimit-remaining'), '3');

      const bad = `svc_live_${'6'.repeat(64)}`;
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++)
        statuses.push(
          (await a.request('GET', '/places', { key: bad, headers: { 'x-forwarded-for': `${net}::${i + 2}` } })).status,
        );
      assert.deepEqual(statuses, Array(30).fill(401));
      const valid = await a.request('GET', '/places', { key: org.keys.read, headers });
      assert.equal(valid.status, 429, 'a valid key from that /64 too');
      assert.deepEqual([valid.body.error.code, valid.body.error.details.limit], ['RATE_LIMITED', 30]);
      assert.equal(valid.headers.get('retry-after'), String(valid.body.error.details.retryAfter));
    });

    it('a batch takes all its slots or none; a take larger than the limit can never fit', async () => {
      const windows = store === 'redis' ? new RedisWindows(REDIS_URL) : undefined;
      const limiter = new RateLimiter(a.runtime.orm.em.fork(), windows ? () => windows : undefined);
      const bucket = `test:${store}:${Math.random()}`;
      const since = Date.now();
      assert.equal((await limiter.consume(bucket, 5, 4)).allowed, true);
      const tooMany = await limiter.consume(bucket, 5, 2);
      assert.equal(tooMany.allowed, false);
      assert.equal(tooMany.remaining, 1, 'a refused take consumes nothing');
      assertRetryAfter(tooMany.retryAfter, since, 'a refused take');
      assert.equal((await limiter.consume(bucket, 5, 1)).allowed, true);
      const never = await limiter.consume(bucket, 5, 6);
      assert.equal(never.allowed, false);
      assert.equal(never.retryAfter, 60);
      const view = await limiter.peek(bucket, 5);
      assert.equal(view.remaining, 0);
      // The window's first second is at least since's: it resets a full minute after that.
      assert.ok(view.resetAt * 1000 > since + 60_000, `resets at ${view.resetAt * 1000}, opened after ${since}`);
      await windows?.close();
    });
  });
}
