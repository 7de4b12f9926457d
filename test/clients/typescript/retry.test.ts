import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createClient, ShelfApiError, ShelfTimeoutError } from '../../../clients/typescript/src/index.js';

type Seen = { method: string; url: string; headers: IncomingHttpHeaders; body: string };

/**
 * A real HTTP server on loopback playing the service's transient answers: each test queues what the
 * next requests get (`answers`), and reads back what arrived (`seen`).
 */
describe('the TypeScript client against a scripted server: retries, Idempotency-Key, errors, waiting', () => {
  const seen: Seen[] = [];
  let answers: ((res: ServerResponse) => void)[] = [];
  let baseUrl: string;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      (answers.shift() ?? ok)(res);
    });
  });
  const json =
    (status: number, body: unknown, headers: Record<string, string> = {}) =>
    (res: ServerResponse) =>
      res
        .writeHead(status, { 'content-type': 'application/json', 'x-request-id': crypto.randomUUID(), ...headers })
        .end(JSON.stringify(body));
  const ok = json(201, { data: { id: 'prj_1', name: 'p' } });
  const unavailable = json(
    503,
    { error: { code: 'SERVICE_UNAVAILABLE', message: 'Try again.' } },
    { 'retry-after': '0' },
  );
  const client = (retries?: number, maxDelayMs?: number) =>
    createClient({ baseUrl, apiKey: 'svc_live_test', retries: { retries, maxDelayMs, baseDelayMs: 10 } });

  before(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));
  const reset = () => {
    seen.length = 0;
    answers = [];
  };

  it('retries a POST after 503s, sending the same body and the same Idempotency-Key each time', async () => {
    reset();
    answers = [unavailable, unavailable, ok];
    const { data } = await client().post('/api/v1/projects', { body: { name: 'p' } });
    assert.equal(data.id, 'prj_1');
    assert.equal(seen.length, 3);
    const keys = new Set(seen.map((s) => s.headers['idempotency-key']));
    assert.equal(keys.size, 1);
    assert.match(String([...keys][0]), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(seen.every((s) => s.body === '{"name":"p"}' && s.headers.authorization === 'Bearer svc_live_test'));
  });

  it("keeps the caller's own Idempotency-Key, and a new call gets a new key", async () => {
    reset();
    await client().post('/api/v1/projects', {
      body: { name: 'p' },
      params: { header: { 'Idempotency-Key': 'mine-1' } },
    });
    await client().post('/api/v1/projects', { body: { name: 'p' } });
    await client().post('/api/v1/projects', { body: { name: 'p' } });
    assert.equal(seen[0]!.headers['idempotency-key'], 'mine-1');
    assert.notEqual(seen[1]!.headers['idempotency-key'], seen[2]!.headers['idempotency-key']);
  });

  it('sends no Idempotency-Key on GET or DELETE', async () => {
    reset();
    answers = [
      json(200, { data: [], pagination: { cursor: null, hasMore: false } }),
      json(200, { data: { deleted: true } }),
    ];
    await client().get('/api/v1/projects');
    await client().delete('/api/v1/places/{id}', { params: { path: { id: 'pl_1' } } });
    assert.deepEqual(
      seen.map((s) => s.headers['idempotency-key']),
      [undefined, undefined],
    );
  });

  it('stops after its retries and throws the last answer as ShelfApiError', async () => {
    reset();
    answers = [unavailable, unavailable, unavailable];
    const err = await client(2)
      .post('/api/v1/projects', { body: { name: 'p' } })
      .catch((e: unknown) => e);
    assert.ok(err instanceof ShelfApiError);
    assert.equal(err.status, 503);
    assert.equal(err.code, 'SERVICE_UNAVAILABLE');
    assert.equal(err.retryAfter, 0);
    assert.match(err.requestId ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(seen.length, 3, 'the first attempt and two retries');
  });

  it('does not wait longer than maxDelayMs: a longer Retry-After is returned at once', async () => {
    reset();
    answers = [json(429, { error: { code: 'RATE_LIMITED', message: 'Slow down.' } }, { 'retry-after': '3600' })];
    const err = await client(3, 1000)
      .get('/api/v1/projects')
      .catch((e: unknown) => e);
    assert.ok(err instanceof ShelfApiError);
    assert.equal(err.code, 'RATE_LIMITED');
    assert.equal(err.retryAfter, 3600);
    assert.equal(seen.length, 1);
  });

  it('retries a request whose connection dropped, and a 409 IDEMPOTENCY_IN_PROGRESS on a retry', async () => {
    reset();
    answers = [
      (res) => res.socket?.destroy(), // the connection drops before any answer
      json(409, { error: { code: 'IDEMPOTENCY_IN_PROGRESS', message: 'Still running.' } }),
      ok,
    ];
    const { data } = await client().post('/api/v1/projects', { body: { name: 'p' } });
    assert.equal(data.id, 'prj_1');
    assert.equal(seen.length, 3);
    assert.equal(new Set(seen.map((s) => s.headers['idempotency-key'])).size, 1);
  });

  it('does not retry other errors: a first 409 or a 422 comes back at once', async () => {
    reset();
    answers = [
      json(409, { error: { code: 'IDEMPOTENCY_IN_PROGRESS', message: 'Still running.' } }),
      json(422, { error: { code: 'VALIDATION_FAILED', message: 'Bad.', details: { fields: [] } } }),
    ];
    const first = await client()
      .post('/api/v1/projects', { body: { name: 'p' } })
      .catch((e: unknown) => e);
    assert.equal((first as ShelfApiError).code, 'IDEMPOTENCY_IN_PROGRESS');
    const second = await client()
      .post('/api/v1/projects', { body: { name: 'p' } })
      .catch((e: unknown) => e);
    assert.equal((second as ShelfApiError).code, 'VALIDATION_FAILED');
    assert.equal(seen.length, 2);
  });

  it('makes a usable error from an answer outside the error shape', async () => {
    reset();
    answers = [(res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>')];
    const err = await client()
      .get('/api/v1/projects')
      .catch((e: unknown) => e);
    assert.ok(err instanceof ShelfApiError);
    assert.equal(err.status, 502);
    assert.equal(err.code, 'HTTP_502');
    assert.match(err.message, /Bad gateway/);
  });

  it('waitForAnalysis polls until a final status, and gives up with ShelfTimeoutError at timeoutMs', async () => {
    reset();
    const processing = json(200, { data: { id: 'an_1', status: 'processing' } });
    answers = [
      processing,
      processing,
      json(200, { data: { id: 'an_1', status: 'failed', error: { code: 'IMAGE_HTTP_ERROR' } } }),
    ];
    const failed = await client().waitForAnalysis('an_1', { pollMs: 5 });
    assert.equal(failed.status, 'failed', 'a failed analysis is an answer, not an exception');
    assert.deepEqual(
      seen.map((r) => `${r.method} ${r.url}`),
      Array(3).fill('GET /api/v1/analyses/an_1'),
    );

    reset();
    answers = Array.from({ length: 1000 }, () => processing);
    const err = await client()
      .waitForAnalysis('an_1', { pollMs: 5, timeoutMs: 100 })
      .catch((e: unknown) => e);
    assert.ok(err instanceof ShelfTimeoutError, String(err));
    assert.ok(seen.length >= 2);
  });
});
