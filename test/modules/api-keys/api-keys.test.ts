import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../../src/db/sql.js';
import { MAX_ACTIVE_KEYS } from '../../../src/modules/api-keys/api-key.service.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg } from '../../helpers/fixtures.js';

describe('API key rotation and the per-organisation cap', () => {
  let api: TestApi;

  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('a revoked or expired key cannot be rotated back to life, and a grace period only ever shortens', async () => {
    const org = await createTestOrg(api.runtime);
    const made = await api.request('POST', '/api-keys', { key: org.keys.admin, body: { role: 'read' } });
    const id = made.body.data.id;

    const first = await api.request('POST', `/api-keys/${id}/rotate`, {
      key: org.keys.admin,
      body: { gracePeriodSeconds: 60 },
    });
    assert.equal(first.status, 200);
    const [before] = await sql<{ expires_at: Date }>(
      api.runtime.orm.em.fork(),
      `select expires_at from api_keys where id = ?`,
      [id],
    );
    // Rotating the expiring key again with a longer grace keeps the earlier end.
    const second = await api.request('POST', `/api-keys/${id}/rotate`, {
      key: org.keys.admin,
      body: { gracePeriodSeconds: 3600 },
    });
    assert.equal(second.status, 200);
    const [afterLonger] = await sql<{ expires_at: Date }>(
      api.runtime.orm.em.fork(),
      `select expires_at from api_keys where id = ?`,
      [id],
    );
    assert.equal(new Date(afterLonger!.expires_at).getTime(), new Date(before!.expires_at).getTime(), 'not extended');
    // A shorter one shortens it.
    await api.request('POST', `/api-keys/${id}/rotate`, { key: org.keys.admin, body: { gracePeriodSeconds: 5 } });
    const [afterShorter] = await sql<{ expires_at: Date }>(
      api.runtime.orm.em.fork(),
      `select expires_at from api_keys where id = ?`,
      [id],
    );
    assert.ok(new Date(afterShorter!.expires_at).getTime() < new Date(before!.expires_at).getTime());

    // Expired: refused, and still expired.
    await sql(api.runtime.orm.em.fork(), `update api_keys set expires_at = now() - interval '1 second' where id = ?`, [
      id,
    ]);
    const expired = await api.request('POST', `/api-keys/${id}/rotate`, {
      key: org.keys.admin,
      body: { gracePeriodSeconds: 3600 },
    });
    assert.equal(expired.status, 409);
    assert.equal(expired.body.error.code, 'CONFLICT');
    const [still] = await sql<{ live: boolean }>(
      api.runtime.orm.em.fork(),
      `select expires_at > now() as live from api_keys where id = ?`,
      [id],
    );
    assert.equal(still!.live, false, 'the expired key stays expired');

    // Revoked: refused.
    const other = await api.request('POST', '/api-keys', { key: org.keys.admin, body: { role: 'read' } });
    await api.request('DELETE', `/api-keys/${other.body.data.id}`, { key: org.keys.admin });
    const revoked = await api.request('POST', `/api-keys/${other.body.data.id}/rotate`, {
      key: org.keys.admin,
      body: {},
    });
    assert.equal(revoked.status, 409);
    assert.equal((await api.request('GET', '/places', { key: other.body.data.key })).status, 401);
  });

  it(`an organisation holds at most ${MAX_ACTIVE_KEYS} working keys, even under concurrent creation`, async () => {
    const org = await createTestOrg(api.runtime);
    // The fixture made 3; fill to the cap less 5, then race 10 creations for the last 5 places.
    for (let i = 3; i < MAX_ACTIVE_KEYS - 5; i++) await api.runtime.services.apiKeys.create(org.id, 'read', `k${i}`);
    const raced = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.request('POST', '/api-keys', { key: org.keys.admin, body: { role: 'read' } }),
      ),
    );
    assert.equal(raced.filter((r) => r.status === 201).length, 5);
    const refused = raced.filter((r) => r.status === 409);
    assert.equal(refused.length, 5);
    assert.equal(refused[0]!.body.error.details.limit, MAX_ACTIVE_KEYS);
    // Revoking one frees a place.
    const anyKey = raced.find((r) => r.status === 201)!;
    await api.request('DELETE', `/api-keys/${anyKey.body.data.id}`, { key: org.keys.admin });
    assert.equal((await api.request('POST', '/api-keys', { key: org.keys.admin, body: { role: 'read' } })).status, 201);
  });
});
