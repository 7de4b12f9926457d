import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validate } from '@readme/openapi-parser';
import { startTestApi, type TestApi } from '../helpers/api.js';

describe('OpenAPI document', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('is served publicly, validates as OpenAPI 3.1 and lists every route', async () => {
    const res = await api.request('GET', '/api/v1/openapi.json');
    assert.equal(res.status, 200);
    const doc = res.body;
    assert.equal(doc.openapi, '3.1.0');
    const result = await validate(structuredClone(doc));
    assert.equal(result.valid, true, JSON.stringify((result as any).errors ?? result, null, 2));

    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths))
      for (const m of Object.keys(ops)) documented.add(`${m} ${path}`);
    const routed = api.routes.map((r) => `${r.method} /api/v1${r.path}`);
    assert.ok(routed.length >= 13);
    assert.deepEqual([...documented].sort(), [...routed].sort());

    for (const route of api.routes) {
      const op = doc.paths[`/api/v1${route.path}`][route.method];
      assert.ok(op.responses[String(route.status)], `${route.operationId} documents its success status`);
      if (route.auth !== false)
        assert.ok(op.responses['401'] && op.responses['403'], `${route.operationId} documents auth errors`);
    }
  });

  it('serves a readable reference page', async () => {
    const res = await api.request('GET', '/api/v1/docs');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    // Scalar renders the generated document, from our own server (no CDN).
    assert.match(res.text, /src="\/api\/v1\/docs\/assets\/standalone.js"/);
    assert.match(res.text, /"url":"\/api\/v1\/openapi.json"/);
    const script = await fetch(`${api.baseUrl}/api/v1/docs/assets/standalone.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.equal(
      (await fetch(`${api.baseUrl}/api/v1/docs/assets/..%2Fpackage.json`)).status,
      404,
      'nothing outside the bundle',
    );
  });
});
