import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg } from '../../helpers/fixtures.js';

describe("store performance filters on the task's own project", () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  it('a task of project B at a store of project A counts for B, not for A', async () => {
    const org = await createTestOrg(api.runtime);
    const projectA = (await api.request('POST', '/projects', { key: org.keys.write, body: { name: 'A' } })).body.data
      .id;
    const projectB = (await api.request('POST', '/projects', { key: org.keys.write, body: { name: 'B' } })).body.data
      .id;
    const place = (
      await api.request('POST', '/places', { key: org.keys.write, body: { title: 'Store', projectId: projectA } })
    ).body.data.id;
    const task = await api.request('POST', '/tasks', {
      key: org.keys.write,
      body: { title: 'Audit', placeId: place, projectId: projectB },
    });
    assert.equal(task.status, 201, task.text);
    const forB = (await api.request('GET', `/reports/store-performance?projectId=${projectB}`, { key: org.keys.read }))
      .body.data;
    assert.deepEqual(
      forB.stores.map((s: { placeId: string; taskCount: number }) => [s.placeId, s.taskCount]),
      [[place, 1]],
    );
    const forA = (await api.request('GET', `/reports/store-performance?projectId=${projectA}`, { key: org.keys.read }))
      .body.data;
    assert.deepEqual(forA.stores, []);
  });
});
