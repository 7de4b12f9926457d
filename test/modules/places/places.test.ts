import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';

describe('places', () => {
  let api: TestApi;
  let org: TestOrg;
  let other: TestOrg;

  before(async () => {
    api = await startTestApi();
    [org, other] = await Promise.all([createTestOrg(api.runtime), createTestOrg(api.runtime)]);
  });
  after(() => api.close());

  it('creates, reads, updates, lists with filters and deletes a place', async () => {
    const project = await api.request('POST', '/projects', { key: org.keys.write, body: { name: 'UK' } });
    assert.equal(project.status, 201);
    const created = await api.request('POST', '/places', {
      key: org.keys.write,
      body: {
        title: 'Tesco Metro Holborn',
        address: '10 High Holborn, London',
        location: { lat: 51.5, lng: -0.12 },
        countryCode: 'gb',
        channel: 'convenience',
        state: 'London',
        projectId: project.body.data.id,
      },
    });
    assert.equal(created.status, 201);
    const place = created.body.data;
    assert.match(place.id, /^pl_[0-9a-z]{26}$/);
    assert.equal(place.countryCode, 'GB');
    assert.deepEqual(place.location, { lat: 51.5, lng: -0.12 });
    assert.ok(Date.parse(place.createdAt));

    await api.request('POST', '/places', {
      key: org.keys.write,
      body: { title: 'Aldi Leeds', countryCode: 'GB', channel: 'discount' },
    });
    await api.request('POST', '/places', {
      key: org.keys.write,
      body: { title: 'Carrefour Lyon', countryCode: 'FR', channel: 'hypermarket' },
    });

    const got = await api.request('GET', `/places/${place.id}`, { key: org.keys.read });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.data, place);

    const byCountry = await api.request('GET', '/places?countryCode=GB', { key: org.keys.read });
    assert.deepEqual(byCountry.body.data.map((p: any) => p.title).sort(), ['Aldi Leeds', 'Tesco Metro Holborn']);
    const byChannel = await api.request('GET', '/places?channel=hypermarket', { key: org.keys.read });
    assert.deepEqual(
      byChannel.body.data.map((p: any) => p.title),
      ['Carrefour Lyon'],
    );
    const bySearch = await api.request('GET', '/places?search=holborn', { key: org.keys.read });
    assert.deepEqual(
      bySearch.body.data.map((p: any) => p.id),
      [place.id],
    );
    const byProject = await api.request('GET', `/places?projectId=${project.body.data.id}`, { key: org.keys.read });
    assert.deepEqual(
      byProject.body.data.map((p: any) => p.id),
      [place.id],
    );
    assert.deepEqual(byProject.body.pagination, { cursor: null, hasMore: false });

    const patched = await api.request('PATCH', `/places/${place.id}`, {
      key: org.keys.write,
      body: { title: 'Tesco Express Holborn', channel: null },
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.data.title, 'Tesco Express Holborn');
    assert.equal(patched.body.data.channel, null);
    assert.equal(patched.body.data.address, '10 High Holborn, London');

    const deleted = await api.request('DELETE', `/places/${place.id}`, { key: org.keys.admin });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body.data, { id: place.id, deleted: true });
    assert.equal((await api.request('GET', `/places/${place.id}`, { key: org.keys.read })).status, 404);
  });

  it("answers 404 for another organisation's place on every verb", async () => {
    const created = await api.request('POST', '/places', { key: org.keys.write, body: { title: 'Mine' } });
    const id = created.body.data.id;
    for (const [method, key, body] of [
      ['GET', other.keys.read, undefined],
      ['PATCH', other.keys.write, { title: 'Theirs' }],
      ['DELETE', other.keys.admin, undefined],
    ] as const) {
      const res = await api.request(method, `/places/${id}`, { key, body });
      assert.equal(res.status, 404, method);
      assert.equal(res.body.error.code, 'NOT_FOUND');
    }
    const list = await api.request('GET', '/places', { key: other.keys.read });
    assert.ok(!list.body.data.some((p: any) => p.id === id));
    assert.equal((await api.request('GET', `/places/${id}`, { key: org.keys.read })).body.data.title, 'Mine');
  });

  it('refuses a projectId of another organisation, naming the field', async () => {
    const theirs = await api.request('POST', '/projects', { key: other.keys.write, body: { name: 'Theirs' } });
    const res = await api.request('POST', '/places', {
      key: org.keys.write,
      body: { title: 'X', projectId: theirs.body.data.id },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error.details.fields[0].field, 'projectId');
  });
});
