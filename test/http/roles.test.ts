import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultRole } from '../../src/http/route.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';

const ROLES = ['read', 'write', 'admin'] as const;
const RANK = { read: 0, write: 1, admin: 2 };

describe('role enforcement', () => {
  let api: TestApi;
  let org: TestOrg;

  before(async () => {
    api = await startTestApi();
    org = await createTestOrg(api.runtime);
  });
  after(() => api.close());

  it('GET needs read, POST and PATCH need write, DELETE needs admin', () => {
    assert.equal(defaultRole('get'), 'read');
    assert.equal(defaultRole('post'), 'write');
    assert.equal(defaultRole('patch'), 'write');
    assert.equal(defaultRole('delete'), 'admin');
  });

  it('every authenticated route refuses a lower role with 403 and admits its own role', async () => {
    const place = (await api.request('POST', '/places', { key: org.keys.write, body: { title: 'Role test' } })).body
      .data;
    // Session-only routes (signing out, the session itself) refuse every API key: test/modules/sessions.
    for (const route of api.routes.filter((r) => r.auth !== false && r.auth !== 'session')) {
      const required = route.role ?? defaultRole(route.method);
      const path = route.path.replace('{id}', place.id);
      for (const role of ROLES) {
        const res = await api.request(route.method.toUpperCase(), path, {
          key: org.keys[role],
          body: route.method === 'get' || route.method === 'delete' ? undefined : {},
        });
        if (RANK[role] < RANK[required]) {
          assert.equal(res.status, 403, `${role} on ${route.method} ${route.path}`);
          assert.equal(res.body.error.code, 'FORBIDDEN');
        } else {
          assert.notEqual(res.status, 403, `${role} on ${route.method} ${route.path}`);
          assert.notEqual(res.status, 401);
        }
      }
    }
  });
});
