import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { freePort } from '../../helpers/ports.js';
import { uniquePrefix } from '../../helpers/worker.js';

/**
 * Redis, the optional rate-limit store (REDIS_URL), down: the rate limit cannot be taken, so the
 * request is not served, and the answer says to come back (503 SERVICE_UNAVAILABLE, Retry-After), as
 * for the database down; once Redis is back the same key is served. `npm run soak` kills Redis too,
 * and a Redis killed under it answered 500.
 */
describe('rate limits in Redis, with Redis down', () => {
  let api: TestApi;
  let org: TestOrg;
  let port: number;
  let redis: ChildProcess | undefined;

  before(async () => {
    port = await freePort();
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('redis-down'), REDIS_URL: `redis://127.0.0.1:${port}` });
    org = await createTestOrg(api.runtime);
  });
  after(async () => {
    redis?.kill('SIGKILL');
    await api.close();
  });

  it('answers 503 with Retry-After while Redis is away, and serves the key again once it is back', async () => {
    for (const [method, path] of [
      ['GET', '/places'],
      ['POST', '/places'],
    ] as const) {
      const res = await api.request(method, path, {
        key: org.keys.admin,
        body: method === 'POST' ? { name: 'Shop' } : undefined,
      });
      assert.equal(res.status, 503, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.error.code, 'SERVICE_UNAVAILABLE');
      assert.ok(Number(res.headers.get('retry-after')) > 0, 'Retry-After');
    }

    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    let res = await api.request('GET', '/places', { key: org.keys.read });
    // ioredis reconnects on its own schedule (at most 2 s apart): the first answers may still be 503.
    for (let i = 0; res.status === 503 && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await api.request('GET', '/places', { key: org.keys.read });
    }
    assert.equal(res.status, 200, res.text);
    assert.ok(res.headers.get('x-ratelimit-remaining') !== null);
    redis.kill('SIGKILL');
    await once(redis, 'exit');
    redis = undefined;
  });
});
