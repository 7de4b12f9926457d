import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { uniquePrefix } from '../helpers/worker.js';

type Role = 'read' | 'write' | 'admin';

/**
 * Written by hand from ../shared/spec/api-spec.md (its endpoint tables and the endpoints it names
 * or implies) and ../shared/spec/decisions.md ("GET read; POST/PATCH write; every DELETE, webhook
 * management, member writes, API key management: admin"), never from the code's route table: a
 * renamed, lost or wrongly guarded endpoint fails here.
 */
const SPEC: [method: string, path: string, role: Role][] = [
  ['POST', '/analyses', 'write'],
  ['POST', '/analyses/batch', 'write'],
  ['GET', '/analyses', 'read'],
  ['GET', '/analyses/{id}', 'read'],
  ['GET', '/analyses/batch/{id}', 'read'],
  ['GET', '/products', 'read'],
  ['POST', '/places', 'write'],
  ['GET', '/places', 'read'],
  ['DELETE', '/places/{id}', 'admin'],
  ['POST', '/tasks', 'write'],
  ['GET', '/tasks', 'read'],
  ['GET', '/tasks/{id}', 'read'],
  ['PATCH', '/tasks/{id}', 'write'],
  ['GET', '/inventory', 'read'],
  ['GET', '/inventory/{id}', 'read'],
  ['PATCH', '/inventory/{id}', 'write'],
  ['POST', '/orders', 'write'],
  ['GET', '/orders', 'read'],
  ['GET', '/orders/{id}', 'read'],
  ['PATCH', '/orders/{id}', 'write'],
  ['DELETE', '/orders/{id}', 'admin'],
  ['GET', '/accounts', 'read'],
  ['POST', '/accounts', 'write'],
  ['GET', '/accounts/{id}', 'read'],
  ['PATCH', '/accounts/{id}', 'write'],
  ['GET', '/alerts', 'read'],
  ['GET', '/alerts/{id}', 'read'],
  ['PATCH', '/alerts/{id}', 'write'],
  ['GET', '/members', 'read'],
  ['POST', '/members/invite', 'admin'],
  ['PATCH', '/members/{id}', 'admin'],
  ['DELETE', '/members/{id}', 'admin'],
  ['GET', '/reports/share-of-shelf', 'read'],
  ['GET', '/reports/store-performance', 'read'],
  ['POST', '/webhooks', 'admin'],
  ['GET', '/usage', 'read'],
  ['POST', '/api-keys', 'admin'],
  ['GET', '/api-keys', 'admin'],
  ['DELETE', '/api-keys/{id}', 'admin'],
];

const BELOW: Record<Role, Role | null> = { read: null, write: 'read', admin: 'write' };

describe("the spec's endpoints exist, with the spec's minimum roles", () => {
  let api: TestApi;
  let org: TestOrg;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('spec-endpoints') });
    org = await createTestOrg(api.runtime);
  });
  after(async () => {
    await api.close();
  });

  for (const [method, path, role] of SPEC) {
    it(`${method} /api/v1${path} needs ${role}`, async () => {
      const url = `/api/v1${path.replace('{id}', 'x_missing')}`;
      const body = method === 'POST' || method === 'PATCH' ? {} : undefined;
      const allowed = await api.request(method, url, { key: org.keys[role], body });
      // The route exists: whatever it answers (a 422 for the empty body, a 404 for the missing id),
      // it is not the router's "no such route" or "method not allowed", and not a refusal by role.
      assert.notEqual(allowed.status, 405, allowed.text);
      assert.ok(
        !(allowed.status === 404 && /^route /.test(allowed.body?.error?.message ?? '')),
        `${method} ${url}: no such route`,
      );
      assert.notEqual(allowed.status, 403, `${method} ${url} refused ${role}: ${allowed.text}`);
      assert.ok(allowed.status < 500, `${method} ${url}: ${allowed.status} ${allowed.text}`);
      const below = BELOW[role];
      if (below) {
        const refused = await api.request(method, url, { key: org.keys[below], body });
        assert.equal(refused.status, 403, `${method} ${url} with a ${below} key: ${refused.text}`);
        assert.equal(refused.body.error.code, 'FORBIDDEN');
      }
    });
  }
});
