import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServices } from '../../src/services.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function assertError(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code);
  assert.equal(typeof res.body.error.message, 'string');
  assert.match(res.headers.get('x-request-id') ?? '', UUID);
  assert.doesNotMatch(JSON.stringify(res.body), /at .*\.ts:\d+|select |insert into/i);
}

describe('HTTP conventions and error codes', () => {
  let api: TestApi;
  let org: TestOrg;

  before(async () => {
    api = await startTestApi();
    org = await createTestOrg(api.runtime);
  });
  after(() => api.close());

  it('AUTH_REQUIRED for a missing or malformed Authorization header', async () => {
    assertError(await api.request('GET', '/places'), 401, 'AUTH_REQUIRED');
    assertError(await api.request('GET', '/places', { headers: { authorization: 'Basic abc' } }), 401, 'AUTH_REQUIRED');
    assertError(
      await api.request('GET', '/places', { headers: { authorization: 'Bearer svc_live_xyz' } }),
      401,
      'AUTH_REQUIRED',
    );
    assertError(
      await api.request('GET', '/places', { headers: { authorization: `Bearer svc_live_${'A'.repeat(64)}` } }),
      401,
      'AUTH_REQUIRED',
    );
  });

  it('INVALID_API_KEY for a well-formed unknown key and for a revoked key on its next request', async () => {
    assertError(await api.request('GET', '/places', { key: `svc_live_${'0'.repeat(64)}` }), 401, 'INVALID_API_KEY');
    const services = createServices(api.runtime.orm.em.fork());
    const { key, secret } = await services.apiKeys.create(org.id, 'read', 'to revoke');
    assert.equal((await api.request('GET', '/places', { key: secret })).status, 200);
    await services.apiKeys.revoke(org.id, key.id);
    assertError(await api.request('GET', '/places', { key: secret }), 401, 'INVALID_API_KEY');
  });

  it('FORBIDDEN names the role needed', async () => {
    const res = await api.request('POST', '/places', { key: org.keys.read, body: { title: 'x' } });
    assertError(res, 403, 'FORBIDDEN');
    assert.equal(res.body.error.details.requiredRole, 'write');
  });

  it('NOT_FOUND for unknown ids and unknown routes, in the error envelope', async () => {
    assertError(await api.request('GET', '/places/pl_doesnotexist', { key: org.keys.read }), 404, 'NOT_FOUND');
    assertError(await api.request('GET', '/no-such-thing', { key: org.keys.read }), 404, 'NOT_FOUND');
    assertError(await api.request('GET', '/api/v2/places'), 404, 'NOT_FOUND');
  });

  it('METHOD_NOT_ALLOWED for a known path with an unsupported method', async () => {
    const res = await api.request('PUT', '/places', { key: org.keys.admin, body: {} });
    assertError(res, 405, 'METHOD_NOT_ALLOWED');
  });

  it('VALIDATION_FAILED names each field, for bodies, queries and wrong types', async () => {
    const res = await api.request('POST', '/places', {
      key: org.keys.write,
      body: { title: 42, location: { lat: 200, lng: 0 }, countryCode: 'GBR', url: 'ftp://x', surprise: true },
    });
    assertError(res, 422, 'VALIDATION_FAILED');
    const fields = res.body.error.details.fields.map((f: any) => f.field).sort();
    assert.deepEqual(fields, ['countryCode', 'location.lat', 'surprise', 'title', 'url']);
    assert.match(res.body.error.message, /title/);

    const missing = await api.request('POST', '/places', { key: org.keys.write, body: {} });
    assertError(missing, 422, 'VALIDATION_FAILED');
    assert.deepEqual(
      missing.body.error.details.fields.map((f: any) => f.field),
      ['title'],
    );

    const query = await api.request('GET', '/places?limit=0', { key: org.keys.read });
    assertError(query, 422, 'VALIDATION_FAILED');
    assert.equal(query.body.error.details.fields[0].field, 'query.limit');
    assertError(await api.request('GET', '/places?limit=101', { key: org.keys.read }), 422, 'VALIDATION_FAILED');
    assertError(await api.request('GET', '/places?cursor=garbage', { key: org.keys.read }), 422, 'VALIDATION_FAILED');
    assertError(await api.request('GET', '/places?bogus=1', { key: org.keys.read }), 422, 'VALIDATION_FAILED');
  });

  it('VALIDATION_FAILED for malformed JSON', async () => {
    const res = await api.request('POST', '/places', {
      key: org.keys.write,
      rawBody: '{"title": ',
      headers: { 'content-type': 'application/json' },
    });
    assertError(res, 422, 'VALIDATION_FAILED');
    assert.equal(res.body.error.details.fields[0].field, 'body');
  });

  it('UNSUPPORTED_MEDIA_TYPE for a body that is not JSON', async () => {
    const res = await api.request('POST', '/places', {
      key: org.keys.write,
      rawBody: 'title=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assertError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('PAYLOAD_TOO_LARGE over 1 MiB', async () => {
    const res = await api.request('POST', '/places', {
      key: org.keys.write,
      body: { title: 'x', address: 'a'.repeat(1024 * 1024 + 10) },
    });
    assertError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('CONFLICT for a duplicate inventory sku', async () => {
    const body = { sku: 'DUP-1', brand: 'B', name: 'N' };
    assert.equal((await api.request('POST', '/inventory', { key: org.keys.write, body })).status, 201);
    const res = await api.request('POST', '/inventory', { key: org.keys.write, body });
    assertError(res, 409, 'CONFLICT');
    assert.equal(res.body.error.details.field, 'sku');
  });

  it('puts X-Request-Id on successful, public and health responses too', async () => {
    for (const res of [
      await api.request('GET', '/places', { key: org.keys.read }),
      await api.request('GET', '/api/v1/openapi.json'),
      await api.request('GET', '/health/live'),
    ]) {
      assert.equal(res.status, 200);
      assert.match(res.headers.get('x-request-id') ?? '', UUID);
    }
  });
});
