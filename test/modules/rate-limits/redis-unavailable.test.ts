import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../../src/db/sql.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { tcpSwitch } from '../../helpers/tcp-switch.js';
import { waitFor } from '../../helpers/wait.js';

/** The machine's Redis (REDIS_TEST_URL to choose another), reached through a switch the test turns off. */
const REDIS = new URL(process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379');

/**
 * Redis is the optional store of the rate-limit windows. Down (refusing, closing every connection,
 * or never answering), the API serves on, with each window kept in PostgreSQL's table meanwhile,
 * so the limits still hold; back, the windows are Redis's again (docs/decisions.md).
 */
describe('rate limits with Redis down', () => {
  let redis: Awaited<ReturnType<typeof tcpSwitch>>;
  let api: TestApi;

  before(async () => {
    redis = await tcpSwitch({ host: REDIS.hostname, port: Number(REDIS.port || 6379) });
    api = await startTestApi({ REDIS_URL: `redis://127.0.0.1:${redis.port}` });
  });
  after(async () => {
    await api.close();
    await redis.close();
  });

  /** Rows of the key's windows in PostgreSQL: there only while Redis was away. */
  const windowsInPostgres = async (org: TestOrg) => {
    const [row] = await sql<{ n: number }>(
      api.runtime.orm.em.fork(),
      `select count(*)::int as n from rate_limit_windows w join api_keys k on w.bucket like 'key:' || k.id || ':%'
        where k.organisation_id = ?`,
      [org.id],
    );
    return row!.n;
  };
  const write = (org: TestOrg, i: number) =>
    api.request('POST', '/projects', { key: org.keys.write, body: { name: `Project ${i}` } });

  /** Once the API's client is connected, a fresh key's windows are in Redis, none in PostgreSQL. */
  const windowsInRedis = () =>
    waitFor(
      "a fresh key's windows to be in Redis",
      async () => {
        const org = await createTestOrg(api.runtime, { plan: 'free' });
        return (await write(org, 0)).status === 201 && (await windowsInPostgres(org)) === 0;
      },
      30_000,
    );

  it('with Redis up the windows are in Redis', async () => {
    await windowsInRedis();
  });

  for (const mode of ['refuse', 'close', 'hang'] as const) {
    it(`Redis ${mode === 'refuse' ? 'refusing connections' : mode === 'close' ? 'closing every connection' : 'never answering'}: requests are served and the plan's limit still holds`, async () => {
      // The free plan: 20 writes a minute.
      const org = await createTestOrg(api.runtime, { plan: 'free' });
      await redis.set(mode);
      try {
        for (let i = 1; i <= 20; i++) {
          const res = await write(org, i);
          assert.equal(res.status, 201, `write ${i}: ${res.text}`);
          assert.equal(res.headers.get('x-ratelimit-limit'), '20');
        }
        const over = await write(org, 21);
        assert.equal(over.status, 429, over.text);
        assert.ok(Number(over.headers.get('retry-after')) > 0);
        const read = await api.request('GET', '/projects', { key: org.keys.read });
        assert.equal(read.status, 200, read.text);
        assert.ok((await windowsInPostgres(org)) > 0, 'the windows were kept in PostgreSQL');
      } finally {
        await redis.set('forward');
      }
      // Back: the windows are Redis's again once the client has reconnected.
      await windowsInRedis();
    });
  }
});
