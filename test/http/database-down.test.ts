import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toAppError } from '../../src/http/error-handler.js';
import { Place } from '../../src/modules/places/place.entity.js';
import { startApiProcess } from '../helpers/api-process.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { tcpSwitch, throughSwitch } from '../helpers/tcp-switch.js';
import { waitFor } from '../helpers/wait.js';
import { stopProcess } from '../helpers/worker-processes.js';

/**
 * The answer to one request, or a failure if none came within `boundMs`: a bound far above the
 * second this is about (it is printed, never asserted), below the minute a request used to hang
 * for (knex's default wait for a connection).
 */
async function answered(url: string, init: RequestInit, boundMs = 20_000) {
  const started = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(boundMs) }).catch((err: unknown) => {
    throw new Error(`${init.method ?? 'GET'} ${url}: no answer within ${boundMs} ms (${String(err)})`);
  });
  const text = await res.text();
  return { res, body: text ? JSON.parse(text) : undefined, ms: Math.round(performance.now() - started) };
}

/** The test's PostgreSQL server, which the switches forward to. */
function postgres() {
  const url = new URL(process.env.DATABASE_URL!);
  return { host: url.hostname, port: Number(url.port || 5432) };
}

function assertUnavailable(what: string, r: { res: Response; body: any; ms: number }) {
  console.log(`  ${what}: ${r.res.status} in ${r.ms} ms`);
  assert.equal(r.res.status, 503, `${what}: ${JSON.stringify(r.body)}`);
  assert.match(r.res.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${what}: Retry-After`);
  assert.equal(r.body.error.code, 'SERVICE_UNAVAILABLE', what);
  assert.equal(typeof r.body.error.message, 'string');
  assert.doesNotMatch(JSON.stringify(r.body), /ECONNREFUSED|127\.0\.0\.1|select |Knex/i);
}

describe('PostgreSQL down: the API answers 503 with Retry-After at once, never a hang or a 500', () => {
  let db: Awaited<ReturnType<typeof tcpSwitch>>;
  let api: TestApi;
  let org: TestOrg;

  before(async () => {
    db = await tcpSwitch(postgres());
    // The production wait for a connection (config.ts's default), not the test API's longer one.
    api = await startTestApi({
      DATABASE_URL: throughSwitch(process.env.DATABASE_URL!, db),
      DATABASE_ACQUIRE_TIMEOUT_MS: 800,
    });
    org = await createTestOrg(api.runtime, { credits: 10 });
  });
  after(async () => {
    await db.set('forward');
    await api.close();
    await db.close();
  });

  const read = () =>
    answered(`${api.baseUrl}/api/v1/analyses`, { headers: { authorization: `Bearer ${org.keys.read}` } });
  const submit = () =>
    answered(`${api.baseUrl}/api/v1/analyses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.keys.write}`, 'content-type': 'application/json' },
      body: JSON.stringify({ imageUrl: 'https://images.example.com/shelf.jpg' }),
    });
  const ready = () => answered(`${api.baseUrl}/health/ready`, {});

  for (const mode of ['refuse', 'hang'] as const) {
    it(`${mode === 'refuse' ? 'refusing connections' : 'accepting connections it never answers'}: reads, submissions and readiness answer 503`, async () => {
      assert.equal((await read()).res.status, 200);
      await db.set(mode);
      try {
        // Two rounds: the second finds the pool's connections gone (or still opening), not fresh.
        for (const round of [1, 2]) {
          assertUnavailable(`${mode} read ${round}`, await read());
          assertUnavailable(`${mode} submission ${round}`, await submit());
          const health = await ready();
          assert.equal(health.res.status, 503);
          assert.equal(health.body.database, false);
        }
      } finally {
        await db.set('forward');
      }
      // Back: served again by the same process, once the connections the outage left are gone (a
      // request meeting one of them is a 503 too, and its retry is served).
      await waitFor('reads served again', async () => (await read()).res.status === 200, 30_000);
    });
  }

  it('an API process started while PostgreSQL refuses starts, answers 503, and serves once it is back', async () => {
    const down = await tcpSwitch(postgres());
    await down.set('refuse');
    const { child, base } = await startApiProcess({
      DATABASE_URL: throughSwitch(process.env.DATABASE_URL!, down),
      METRICS_PORT: '0',
    });
    const readThere = () =>
      answered(`${base}/api/v1/analyses`, { headers: { authorization: `Bearer ${org.keys.read}` } });
    try {
      assertUnavailable('read at start', await readThere());
      assert.equal((await answered(`${base}/health/ready`, {})).res.status, 503);
      await down.set('forward');
      await waitFor('reads served once PostgreSQL is back', async () => (await readThere()).res.status === 200, 30_000);
    } finally {
      await stopProcess(child, 'SIGTERM');
      await down.close();
    }
  });
});

describe("every pooled connection held past the wait: the ORM's error is a 503 too", () => {
  it('an ORM read that waited DATABASE_ACQUIRE_TIMEOUT_MS for a connection maps to SERVICE_UNAVAILABLE, not a 500', async () => {
    // MikroORM wraps knex's KnexTimeoutError in a DriverException (its own name, the message kept, no
    // cause): found by limits.test.ts on a loaded CI host, 8 of 90 reads answered 500.
    const api = await startTestApi({ DATABASE_POOL_MAX: 1, DATABASE_ACQUIRE_TIMEOUT_MS: 200 });
    const knex = api.runtime.orm.em.getConnection().getKnex();
    const held = await knex.client.acquireConnection();
    try {
      const err = await api.runtime.orm.em
        .fork()
        .find(Place, {})
        .then(
          () => assert.fail('the read got a connection the test holds'),
          (e: Error) => e,
        );
      assert.equal(toAppError(err).code, 'SERVICE_UNAVAILABLE', `${err.name}: ${err.message}`);
    } finally {
      await knex.client.releaseConnection(held);
      await api.close();
    }
  });
});
