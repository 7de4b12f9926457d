import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../src/db/sql.js';
import { createLogger } from '../../src/lib/logger.js';
import { createServices } from '../../src/services.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg } from '../helpers/fixtures.js';
import { waitFor } from '../helpers/wait.js';
import { uniquePrefix } from '../helpers/worker.js';

describe('security: roles before replays, secrets at rest, per-address limits, exact routing', () => {
  let api: TestApi;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('security'), TRUST_PROXY: true, PROXY_HOPS: 1 });
  });
  after(async () => {
    await api.close();
  });

  it('an idempotent replay never skips the role check, and answers are scoped to the key that made them', async () => {
    const org = await createTestOrg(api.runtime);
    const headers = { 'idempotency-key': 'K-create-admin' };
    const body = { role: 'admin', name: 'ops' };
    const created = await api.request('POST', '/api-keys', { key: org.keys.admin, body, headers });
    assert.equal(created.status, 201);
    const secret: string = created.body.data.key;
    assert.match(secret, /^svc_live_[0-9a-f]{64}$/);

    // A read key repeating the admin's request with the same Idempotency-Key: 403, and no secret.
    const stolen = await api.request('POST', '/api-keys', { key: org.keys.read, body, headers });
    assert.equal(stolen.status, 403);
    assert.equal(stolen.body.error.code, 'FORBIDDEN');
    assert.equal(stolen.headers.get('x-idempotent-replayed'), null);
    assert.ok(!stolen.text.includes(secret));
    assert.ok(!stolen.text.includes('svc_live_'));

    // The admin's own retry gets its answer back (decisions.md: the creator's retry replays it).
    const retry = await api.request('POST', '/api-keys', { key: org.keys.admin, body, headers });
    assert.equal(retry.status, 201);
    assert.equal(retry.headers.get('x-idempotent-replayed'), 'true');
    assert.equal(retry.body.data.key, secret);
    assert.equal(retry.body.data.id, created.body.data.id);

    // A 403 is never stored for a later admin: the role check comes first.
    const forbidden = await api.request('POST', '/webhooks', {
      key: org.keys.read,
      body: { url: 'https://hooks.example.com/a', events: ['*'] },
      headers: { 'idempotency-key': 'K-hook' },
    });
    assert.equal(forbidden.status, 403);
    const byAdmin = await api.request('POST', '/webhooks', {
      key: org.keys.admin,
      body: { url: 'https://hooks.example.com/a', events: ['*'] },
      headers: { 'idempotency-key': 'K-hook' },
    });
    assert.equal(byAdmin.status, 201);
    assert.equal(byAdmin.headers.get('x-idempotent-replayed'), null);

    // Another key of the same organisation with the same Idempotency-Key makes a new request.
    const p1 = await api.request('POST', '/projects', {
      key: org.keys.write,
      body: { name: 'p' },
      headers: { 'idempotency-key': 'K-project' },
    });
    const p2 = await api.request('POST', '/projects', {
      key: org.keys.admin,
      body: { name: 'p' },
      headers: { 'idempotency-key': 'K-project' },
    });
    assert.equal(p1.status, 201);
    assert.equal(p2.status, 201);
    assert.equal(p2.headers.get('x-idempotent-replayed'), null);
    assert.notEqual(p1.body.data.id, p2.body.data.id);
  });

  it('a dump of the database holds no API key, webhook secret or callback secret in clear', async () => {
    const org = await createTestOrg(api.runtime, { credits: 5 });
    const secrets: string[] = [];
    const idem = (k: string) => ({ 'idempotency-key': k });
    const key = await api.request('POST', '/api-keys', {
      key: org.keys.admin,
      body: { role: 'write' },
      headers: idem('dump-1'),
    });
    secrets.push(key.body.data.key);
    const rotated = await api.request('POST', `/api-keys/${key.body.data.id}/rotate`, {
      key: org.keys.admin,
      body: { gracePeriodSeconds: 60 },
      headers: idem('dump-2'),
    });
    assert.equal(rotated.status, 200);
    secrets.push(rotated.body.data.key);
    const hook = await api.request('POST', '/webhooks', {
      key: org.keys.admin,
      body: { url: 'https://hooks.example.com/dump', events: ['*'] },
      headers: idem('dump-3'),
    });
    secrets.push(hook.body.data.secret);
    const hookRotated = await api.request('POST', `/webhooks/${hook.body.data.id}/rotate-secret`, {
      key: org.keys.admin,
      headers: idem('dump-4'),
    });
    secrets.push(hookRotated.body.data.secret);
    const analysis = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: 'https://images.example.com/shelf.jpg', callbackUrl: 'https://hooks.example.com/cb' },
      headers: idem('dump-5'),
    });
    assert.equal(analysis.status, 202);
    secrets.push(analysis.body.data.callbackSecret);
    const batch = await api.request('POST', '/analyses/batch', {
      key: org.keys.write,
      body: { images: [{ imageUrl: 'https://images.example.com/a.jpg' }], callbackUrl: 'https://hooks.example.com/cb' },
      headers: idem('dump-6'),
    });
    secrets.push(batch.body.data.analyses[0].callbackSecret);
    secrets.push(...Object.values(org.keys));
    assert.equal(secrets.length, 9);
    for (const s of secrets) assert.ok(typeof s === 'string' && s.length >= 30, `secret ${s}`);

    // Every row of every table as text, as a data-only dump shows it (bytea in hex, JSON as text).
    // Read over SQL rather than by pg_dump: the machine's pg_dump refuses a newer server (Debian's 15
    // against the embedded PostgreSQL 18 that `npm test` starts without DATABASE_URL).
    const em = api.runtime.orm.em.fork();
    const tables = await sql<{ name: string }>(
      em,
      `select format('%I.%I', table_schema, table_name) as name from information_schema.tables
        where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
    );
    assert.ok(tables.length > 10, `${tables.length} tables`);
    let dump = '';
    for (const { name } of tables)
      for (const { row } of await sql<{ row: string }>(em, `select t::text as row from ${name} t`)) dump += row + '\n';
    assert.ok(dump.includes(hook.body.data.id), 'the dump has the rows');
    for (const s of secrets) assert.ok(!dump.includes(s), `a secret is in the dump in clear: ${s.slice(0, 12)}…`);
    // The secret body (without prefix) is not there either, in any encoding we would use.
    for (const s of secrets) assert.ok(!dump.includes(s.split('_').pop()!), 'secret digits in the dump');

    // Secrets still work: the webhook signs with its secret (read back through the ORM), replays still answer.
    const [row] = await sql<{ secret: string }>(em, `select secret from webhooks where id = ?`, [hook.body.data.id]);
    assert.match(row!.secret, /^sealed1\./);
    const webhook = await createServices(em).webhooks.get(org.id, hook.body.data.id);
    assert.equal(webhook.secret, hookRotated.body.data.secret);
    assert.equal(webhook.previousSecret, hook.body.data.secret);
    const replay = await api.request('POST', '/webhooks', {
      key: org.keys.admin,
      body: { url: 'https://hooks.example.com/dump', events: ['*'] },
      headers: idem('dump-3'),
    });
    assert.equal(replay.headers.get('x-idempotent-replayed'), 'true');
    assert.equal(replay.body.data.secret, hook.body.data.secret);
  });

  it('logs carry no key, secret or Authorization header, and database errors are logged without their parameters', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const logger = createLogger('info', 'security-test', sink);
    const secret = `svc_live_${'ab'.repeat(32)}`;
    logger.info(
      {
        req: { headers: { authorization: `Bearer ${secret}` } },
        body: { key: secret, secret, callbackSecret: secret },
      },
      'request',
    );
    logger.info({ data: { apiKey: secret } }, 'nested');
    // A real database refusal whose statement carries a secret as a parameter.
    let dbError: unknown;
    try {
      await sql(
        api.runtime.orm.em.fork(),
        `insert into api_keys (id, organisation_id, created_at, updated_at, role, key_hash, key_prefix) values (?, ?, now(), now(), 'read', ?, ?)`,
        ['key_x', 'org_missing', secret, 'x'.repeat(300)],
      );
    } catch (err) {
      dbError = err;
    }
    assert.ok(
      dbError instanceof Error && dbError.message.includes(secret),
      'the driver puts the parameters in its message',
    );
    logger.error({ err: dbError }, 'request failed');
    const out = lines.join('');
    assert.ok(!out.includes(secret), out);
    assert.ok(!out.includes('ab'.repeat(32)));
    assert.match(out, /value too long|violates/);
    assert.match(out, /\[redacted\]/);
  });

  it('past its failed-authentication budget an address is refused first, a valid key too: before the key is looked up or the body read', async () => {
    const org = await createTestOrg(api.runtime);
    const bad = `svc_live_${'2'.repeat(64)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      // The client forges a different leftmost entry each time; the proxy appends the real address.
      const headers = { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.90` };
      statuses.push((await api.request('GET', '/places', { key: bad, headers })).status);
    }
    assert.deepEqual(statuses.slice(0, 30), Array(30).fill(401));
    assert.deepEqual(statuses.slice(30), Array(10).fill(429), 'forged leftmost entries do not dodge the limiter');

    // The address is past its budget whatever key it sends: its key is not looked up (decisions.md).
    const from = { 'x-forwarded-for': '198.51.100.200, 203.0.113.90' };
    const valid = await api.request('GET', '/places', { key: org.keys.read, headers: from });
    assert.equal(valid.status, 429, 'a valid key from that address is refused too');
    assert.equal(valid.body.error.code, 'RATE_LIMITED');
    const { retryAfter, ...rest } = valid.body.error.details;
    assert.deepEqual(rest, { limit: 30, window: '60s' });
    assert.ok(retryAfter >= 1 && retryAfter <= 61, String(retryAfter));
    assert.equal(valid.headers.get('retry-after'), String(retryAfter));
    assert.equal(valid.headers.get('x-ratelimit-limit'), '30');
    assert.equal(valid.headers.get('x-ratelimit-remaining'), '0');
    // Nor is its body read: a body over the 1 MiB JSON limit is not a 413, malformed JSON not a 422.
    const json = { ...from, 'content-type': 'application/json' };
    const huge = await api.request('POST', '/places', {
      key: org.keys.write,
      rawBody: JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) }),
      headers: json,
    });
    assert.equal(huge.status, 429, huge.text.slice(0, 200));
    const malformed = await api.request('POST', '/analyses/batch', {
      key: org.keys.write,
      rawBody: '{"images": [',
      headers: json,
    });
    assert.equal(malformed.status, 429, malformed.text);
    assert.equal(malformed.body.error.code, 'RATE_LIMITED');

    // Nor can a forged entry lock a victim out: the victim's real address is its own bucket.
    const victim = await api.request('GET', '/places', {
      key: bad,
      headers: { 'x-forwarded-for': '203.0.113.90, 203.0.113.91' },
    });
    assert.equal(victim.status, 401);
    const served = await api.request('GET', '/places', {
      key: org.keys.read,
      headers: { 'x-forwarded-for': '203.0.113.90, 203.0.113.91' },
    });
    assert.equal(served.status, 200);
  });

  it("an unknown caller's body is never read: the 401 comes first", async () => {
    const bad = `svc_live_${'4'.repeat(64)}`;
    // What Node's request stream says when the answer is finished: had anything read the body yet?
    const bodyRead: boolean[] = [];
    const watch = (req: IncomingMessage, res: ServerResponse) =>
      res.on('finish', () => bodyRead.push(req.readableDidRead));
    api.server.on('request', watch);
    try {
      const headers = { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.140' };
      for (const path of ['/places', '/analyses/batch']) {
        const res = await api.request('POST', path, { key: bad, rawBody: '{"title": ', headers });
        assert.equal(res.status, 401, `${path}: ${res.text}`);
        assert.equal(res.body.error.code, 'INVALID_API_KEY');
      }
      await waitFor('both answers finished', async () => bodyRead.length === 2);
      assert.deepEqual(bodyRead, [false, false]);
    } finally {
      api.server.off('request', watch);
    }
  });

  it('an IPv6 client counts by its /64, an IPv4-mapped address as its IPv4 address', async () => {
    const bad = `svc_live_${'5'.repeat(64)}`;
    const get = (address: string) =>
      api.request('GET', '/places', { key: bad, headers: { 'x-forwarded-for': address } });
    const statuses: number[] = [];
    // 30 failures, each from another address of 2001:db8:36:64::/64.
    for (let i = 0; i < 30; i++) statuses.push((await get(`2001:db8:36:64:${i.toString(16)}::${i + 1}`)).status);
    assert.deepEqual(statuses, Array(30).fill(401));
    assert.equal((await get('2001:db8:36:64:ffff:ffff:ffff:fffe')).status, 429, 'the same /64');
    assert.equal((await get('2001:0db8:0036:0064::1')).status, 429, 'the same /64, spelt otherwise');
    assert.equal((await get('2001:db8:36:65::1')).status, 401, 'the next /64 has its own budget');

    // 203.0.113.136 and ::ffff:203.0.113.136 (::ffff:cb00:7188) are one client.
    const mapped: number[] = [];
    for (let i = 0; i < 30; i++) mapped.push((await get(i % 2 ? '::ffff:203.0.113.136' : '203.0.113.136')).status);
    assert.deepEqual(mapped, Array(30).fill(401));
    assert.equal((await get('::ffff:cb00:7188')).status, 429);
    assert.equal((await get('203.0.113.136')).status, 429);
  });

  it('routing is strict and case-sensitive; rate categories come from the matched route; no handler runs without a caller', async () => {
    const org = await createTestOrg(api.runtime, { plan: 'free', credits: 50 });
    for (const path of ['/API/V1/places', '/api/V1/places', '/Api/v1/places']) {
      for (const key of [undefined, org.keys.read]) {
        const res = await api.request('GET', path, { key });
        assert.ok(res.status === 404 || res.status === 401, `${path}: ${res.status}`);
        assert.ok(res.body?.error?.code, 'error envelope');
      }
    }
    const slash = await api.request('GET', '/api/v1/places/', { key: org.keys.read });
    assert.equal(slash.status, 404);
    assert.equal((await api.request('GET', '/api/v1/places', { key: org.keys.read })).status, 200);

    // A free plan takes 5 analyses a minute: a 10-image batch is 429 however the path is spelt.
    const images = Array.from({ length: 10 }, (_, i) => ({ imageUrl: `https://images.example.com/${i}.jpg` }));
    for (const path of ['/api/v1/analyses/batch', '/api/v1/analyses/batch/', '/API/v1/analyses/batch']) {
      const res = await api.request('POST', path, { key: org.keys.write, body: { images } });
      assert.notEqual(res.status, 202, path);
      assert.ok([404, 429].includes(res.status), `${path}: ${res.status}`);
    }
    assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, 50, 'nothing was charged');

    // Every route of the table, reached without a key, is a 401 in the error envelope (but the
    // console's public ones, sign-in and links: test/modules/sessions/sessions.test.ts).
    for (const [i, route] of api.routes.entries()) {
      if (route.auth === false) continue;
      const path = `/api/v1${route.path.replace(/\{\w+\}/g, 'x1')}`;
      // Each from its own address, so the auth-failure limit of one address is not what answers.
      const headers = { 'x-forwarded-for': `192.0.2.${i % 250}` };
      const res = await api.request(
        route.method.toUpperCase(),
        path,
        route.method === 'get' || route.method === 'delete' ? { headers } : { body: {}, headers },
      );
      assert.equal(res.status, 401, `${route.method} ${path}`);
      assert.equal(res.body.error.code, 'AUTH_REQUIRED');
    }
  });
});
