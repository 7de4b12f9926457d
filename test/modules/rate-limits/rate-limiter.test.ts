import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { RateLimiter } from '../../../src/modules/rate-limits/rate-limiter.js';
import { closeRedisWindows, redisWindows } from '../../../src/modules/rate-limits/redis-windows.js';
import { request, startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg } from '../../helpers/fixtures.js';
import { startApiProcess } from '../../helpers/api-process.js';
import { uniquePrefix } from '../../helpers/worker.js';

/** This machine's Redis (the README's test prerequisites); the PostgreSQL store needs nothing extra. */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

for (const store of ['postgres', 'redis'] as const) {
  describe(`rate limits in ${store}: exact across two API processes`, () => {
    let a: TestApi;
    let b: ChildProcess;
    let bBase: string;
    const env: Record<string, string> = store === 'redis' ? { REDIS_URL } : {};

    before(async () => {
      a = await startTestApi({
        TASK_QUEUE_PREFIX: uniquePrefix(`rl-${store}`),
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
        const retryAfter = Number(refused.headers.get('retry-after'));
        assert.ok(retryAfter >= 55 && retryAfter <= 61, `Retry-After ${retryAfter}`);
      }
    });

    it('a batch takes all its slots or none; a take larger than the limit can never fit', async () => {
      const limiter = new RateLimiter(
        a.runtime.orm.em.fork(),
        store === 'redis' ? () => redisWindows(REDIS_URL) : undefined,
      );
      const bucket = `test:${store}:${Math.random()}`;
      assert.equal((await limiter.consume(bucket, 5, 4)).allowed, true);
      const tooMany = await limiter.consume(bucket, 5, 2);
      assert.equal(tooMany.allowed, false);
      assert.equal(tooMany.remaining, 1, 'a refused take consumes nothing');
      assert.ok(tooMany.retryAfter >= 59 && tooMany.retryAfter <= 61);
      assert.equal((await limiter.consume(bucket, 5, 1)).allowed, true);
      const never = await limiter.consume(bucket, 5, 6);
      assert.equal(never.allowed, false);
      assert.equal(never.retryAfter, 60);
      const view = await limiter.peek(bucket, 5);
      assert.equal(view.remaining, 0);
      assert.ok(view.resetAt * 1000 > Date.now() + 55_000);
      if (store === 'redis') await closeRedisWindows();
    });
  });
}
