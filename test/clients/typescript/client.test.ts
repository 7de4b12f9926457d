import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, ShelfApiError, type ShelfClient } from '../../../clients/typescript/src/index.js';
import { verifyWebhookSignature, WebhookSignatureError } from '../../../clients/typescript/src/webhooks.js';
import { offlineOpenApiDocument } from '../../../scripts/lib/client-schema.js';
import { sql } from '../../../src/db/sql.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../../helpers/image-host.js';
import { startReceiver } from '../../helpers/receiver.js';
import { product, ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { waitFor } from '../../helpers/wait.js';
import { signedInMember } from '../../helpers/console-session.js';
import { startTestWorkers } from '../../helpers/worker.js';
import { uniquePrefix } from '../../helpers/worker.js';

/** What went over the wire: the client's `fetch` option, recording each attempt and passing it on. */
function recordingFetch() {
  const sent: {
    method: string;
    url: string;
    idempotencyKey: string | null;
    status: number;
    retryAfter: string | null;
  }[] = [];
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    sent.push({
      method: request.method,
      url: request.url,
      idempotencyKey: request.headers.get('idempotency-key'),
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
    });
    return response;
  };
  return { sent, fetch: fetchImpl as typeof fetch };
}

describe('the TypeScript client (clients/typescript) against the running service', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let stopWorkers: () => Promise<void>;
  let writer: ShelfClient;
  let admin: ShelfClient;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('ts-client') });
    stopWorkers = (
      await startTestWorkers(
        api.runtime,
        new ScriptedRecognizer(() => [product({ brand: 'Heinz', description: 'Baked Beans', units: 3, price: 1.2 })]),
      )
    ).stop;
    org = await createTestOrg(api.runtime, { credits: 50 });
    host = await startImageHost({ '/shelf.png': { body: await pngOfWidth(80) } });
    writer = createClient({ baseUrl: api.baseUrl, apiKey: org.keys.write });
    admin = createClient({ baseUrl: api.baseUrl, apiKey: org.keys.admin });
  });
  after(async () => {
    await stopWorkers?.();
    await host?.close();
    await api?.close();
  });

  it('is generated from the document the service serves', async () => {
    const served = await (await fetch(`${api.baseUrl}/api/v1/openapi.json`)).json();
    assert.deepEqual(served, JSON.parse(JSON.stringify(offlineOpenApiDocument())));
  });

  it('submits an analysis, waits for it, and lists analyses page by page', async () => {
    const wire = recordingFetch();
    const client = createClient({ baseUrl: api.baseUrl, apiKey: org.keys.write, fetch: wire.fetch });
    const { data: place } = await client.post('/api/v1/places', { body: { title: 'Client test store' } });
    assert.match(place.id, /^pl_/);

    const { data: submitted } = await client.post('/api/v1/analyses', {
      body: { imageUrl: host.url('/shelf.png'), placeId: place.id, externalId: 'client-e2e', metadata: { aisle: '4' } },
    });
    assert.equal(submitted.status, 'processing');
    // Every POST carried an Idempotency-Key the client made, a different one per call.
    const posts = wire.sent.filter((s) => s.method === 'POST');
    assert.equal(posts.length, 2);
    assert.ok(posts.every((p) => /^[0-9a-f-]{36}$/.test(p.idempotencyKey ?? '')));
    assert.notEqual(posts[0]!.idempotencyKey, posts[1]!.idempotencyKey);

    const analysis = await client.waitForAnalysis(submitted.id, { pollMs: 100, timeoutMs: 60_000 });
    assert.equal(analysis.status, 'completed');
    assert.equal(analysis.externalId, 'client-e2e');
    assert.deepEqual(analysis.metadata, { aisle: '4' });
    assert.equal(analysis.products.length, 1);
    assert.equal(analysis.products[0]!.brand, 'Heinz');
    assert.equal(analysis.products[0]!.units, 3);

    // Four more at the same place, then the list at two per page: three pages, each analysis once.
    for (let i = 0; i < 4; i++)
      await client.post('/api/v1/analyses', { body: { imageUrl: host.url('/shelf.png'), placeId: place.id } });
    const before = wire.sent.length;
    const ids: string[] = [];
    for await (const a of client.paginate('/api/v1/analyses', { query: { placeId: place.id, limit: 2 } }))
      ids.push(a.id);
    assert.equal(ids.length, 5);
    assert.equal(new Set(ids).size, 5);
    assert.ok(ids.includes(submitted.id));
    const pages = wire.sent.slice(before);
    assert.equal(pages.length, 3);
    assert.equal(new URL(pages[0]!.url).searchParams.get('cursor'), null);
    assert.ok(pages.slice(1).every((p) => new URL(p.url).searchParams.get('cursor')));
    assert.ok(pages.every((p) => new URL(p.url).searchParams.get('placeId') === place.id));
  });

  it('throws ShelfApiError carrying the error body, status and request id', async () => {
    const err = await writer
      .post('/api/v1/analyses', { body: { imageUrl: 'not a url' } })
      .then(() => assert.fail('accepted'))
      .catch((e: unknown) => e);
    assert.ok(err instanceof ShelfApiError);
    assert.equal(err.status, 422);
    assert.equal(err.code, 'VALIDATION_FAILED');
    assert.ok(Array.isArray(err.details?.fields));
    assert.match(err.requestId ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(Object.keys(err.toJSON().error).sort(), ['code', 'details', 'message']);

    const notFound = await writer
      .get('/api/v1/analyses/{id}', { params: { path: { id: 'an_unknown' } } })
      .catch((e: unknown) => e);
    assert.ok(notFound instanceof ShelfApiError);
    assert.equal(notFound.code, 'NOT_FOUND');
    assert.equal(notFound.status, 404);
  });

  it("verifies a real webhook delivery with the client's helper; a tampered body, another secret or an old delivery fail", async () => {
    const receiver = await startReceiver();
    const { data: hook } = await admin.post('/api/v1/webhooks', {
      body: { url: receiver.url, events: ['analysis.completed'], description: 'client test' },
    });
    const { data: submitted } = await writer.post('/api/v1/analyses', {
      body: { imageUrl: host.url('/shelf.png'), externalId: 'client-hook' },
    });
    // Analyses of the tests before may still be finishing: the one submitted here is the one to check.
    const delivery = await waitFor('the webhook delivery', async () =>
      receiver.received.find((r) => r.raw.includes(submitted.id)),
    );

    const event = verifyWebhookSignature(delivery.raw, delivery.headers, hook.secret);
    assert.equal(event.event, 'analysis.completed');
    assert.equal(event.deliveryId, delivery.headers['x-service-delivery']);
    assert.throws(
      () => verifyWebhookSignature(delivery.raw, { ...delivery.headers, 'x-service-delivery': 'dlv_x' }, hook.secret),
      /not the signed delivery id/,
    );
    assert.equal(event.webhookId, hook.id);
    assert.equal(event.data.id, submitted.id);
    assert.equal(event.data.externalId, 'client-hook');

    const tampered = delivery.raw.replace('"client-hook"', '"client-hoo0"');
    assert.notEqual(tampered, delivery.raw);
    assert.throws(() => verifyWebhookSignature(tampered, delivery.headers, hook.secret), WebhookSignatureError);
    assert.throws(
      () => verifyWebhookSignature(delivery.raw, delivery.headers, `whsec_${'0'.repeat(64)}`),
      WebhookSignatureError,
    );
    const sentAt = Number(/t=(\d+)/.exec(String(delivery.headers['x-service-signature']))![1]);
    assert.throws(
      () =>
        verifyWebhookSignature(delivery.raw, delivery.headers, hook.secret, { now: new Date((sentAt + 301) * 1000) }),
      /tolerance/,
    );

    // After a rotation the service signs with both secrets for a day: either one verifies.
    const { data: rotated } = await admin.post('/api/v1/webhooks/{id}/rotate-secret', {
      params: { path: { id: hook.id } },
    });
    await admin.post('/api/v1/webhooks/{id}/test', { params: { path: { id: hook.id } } });
    const test = await waitFor('the test delivery', async () =>
      receiver.received.find((r) => r.headers['x-service-event'] === 'webhook.test'),
    );
    assert.equal((String(test.headers['x-service-signature']).match(/v1=/g) ?? []).length, 2);
    assert.equal(verifyWebhookSignature(test.raw, test.headers, rotated.secret).event, 'webhook.test');
    assert.equal(verifyWebhookSignature(test.raw, test.headers, hook.secret).event, 'webhook.test');
    assert.throws(() =>
      verifyWebhookSignature(test.raw.replace('}', ' }'), test.headers, [rotated.secret, hook.secret]),
    );
    await receiver.close();
  });

  it('on 429 waits for Retry-After and retries with the same Idempotency-Key; past its retries it throws RATE_LIMITED', async () => {
    const free = await createTestOrg(api.runtime, { plan: 'free' }); // 20 writes per 60 s
    const fill = createClient({ baseUrl: api.baseUrl, apiKey: free.keys.write, retries: 0 });
    for (let i = 0; i < 20; i++) await fill.post('/api/v1/projects', { body: { name: `p${i}` } });
    const refused = await fill.post('/api/v1/projects', { body: { name: 'one too many' } }).catch((e: unknown) => e);
    assert.ok(refused instanceof ShelfApiError);
    assert.equal(refused.code, 'RATE_LIMITED');
    assert.equal(refused.status, 429);
    assert.ok(refused.retryAfter! > 0, `Retry-After ${refused.retryAfter}`);
    assert.equal(refused.details?.retryAfter, refused.retryAfter);

    // Rather than wait a minute: date the key's counters 56 s back from now, so they leave the
    // window in about 5 s and the service's Retry-After says so.
    const moved = await sql<{ bucket: string }>(
      api.runtime.orm.em.fork(),
      `update rate_limit_windows
          set seconds = array(select case when u.c > 0 then floor(extract(epoch from clock_timestamp()))::bigint - 56 else u.s end
                                from unnest(seconds, counts) with ordinality as u(s, c, i) order by u.i)
        where bucket in (select 'key:' || id || ':writes' from api_keys where organisation_id = ?) returning bucket`,
      [free.id],
    );
    assert.equal(moved.length, 1);
    // One retry only: had the client retried before Retry-After, the service would refuse it again.
    const wire = recordingFetch();
    const patient = createClient({ baseUrl: api.baseUrl, apiKey: free.keys.write, fetch: wire.fetch, retries: 1 });
    const { data: project } = await patient.post('/api/v1/projects', { body: { name: 'after the wait' } });
    assert.equal(project.name, 'after the wait');
    assert.equal(wire.sent.length, 2);
    assert.equal(wire.sent[0]!.status, 429);
    assert.ok(
      Number(wire.sent[0]!.retryAfter) >= 1 && Number(wire.sent[0]!.retryAfter) <= 6,
      `Retry-After ${wire.sent[0]!.retryAfter}`,
    );
    assert.equal(wire.sent[1]!.status, 201);
    assert.ok(wire.sent[0]!.idempotencyKey);
    assert.equal(wire.sent[1]!.idempotencyKey, wire.sent[0]!.idempotencyKey, 'one key per logical call');
  });

  it('calls with a console session in place of a key: the cookie goes, and X-CSRF-Token on every change', async () => {
    const member = await signedInMember(api, org, 'member');
    let csrfToken = member.csrf;
    const sent: { method: string; authorization: string | null; csrf: string | null }[] = [];
    const client = createClient({
      baseUrl: api.baseUrl,
      session: { csrfToken: () => csrfToken },
      // A browser sends the cookie and the page's origin itself; Node's fetch is told to.
      headers: { cookie: member.cookie, origin: api.baseUrl },
      fetch: async (input, init) => {
        const request = new Request(input, init);
        sent.push({
          method: request.method,
          authorization: request.headers.get('authorization'),
          csrf: request.headers.get('x-csrf-token'),
        });
        return fetch(request);
      },
    });
    const { data: me } = await client.get('/api/v1/auth/session');
    assert.equal(me.member.userId, member.userId);
    const { data: place } = await client.post('/api/v1/places', { body: { title: 'Session store' } });
    assert.match(place.id, /^pl_/);
    assert.deepEqual(sent, [
      { method: 'GET', authorization: null, csrf: null },
      { method: 'POST', authorization: null, csrf: member.csrf },
    ]);
    csrfToken = 'not-the-token';
    const refused = await client
      .post('/api/v1/places', { body: { title: 'Forged' } })
      .then(() => assert.fail('accepted'))
      .catch((e: unknown) => e);
    assert.ok(refused instanceof ShelfApiError);
    assert.equal(refused.status, 403);
    assert.throws(
      () => createClient({ baseUrl: api.baseUrl, apiKey: org.keys.read, session: { csrfToken: () => '' } }),
      TypeError,
    );
  });
});
