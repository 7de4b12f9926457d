import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';

describe('keyset pagination', () => {
  let api: TestApi;
  let org: TestOrg;

  before(async () => {
    api = await startTestApi();
    org = await createTestOrg(api.runtime);
  });
  after(() => api.close());

  it('walks more than one page without gaps or repeats while rows are inserted concurrently', async () => {
    const initial: string[] = [];
    for (let i = 0; i < 57; i++) {
      const res = await api.request('POST', '/inventory', {
        key: org.keys.write,
        body: { sku: `PG-${i}`, brand: 'B', name: `Item ${i}` },
      });
      initial.push(res.body.data.id);
    }
    let inserting = true;
    let extra = 0;
    const writer = (async () => {
      while (inserting) {
        await api.request('POST', '/inventory', {
          key: org.keys.write,
          body: { sku: `PG-NEW-${extra++}`, brand: 'B', name: 'new' },
        });
      }
    })();

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const qs: string = `?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await api.request('GET', `/inventory${qs}`, { key: org.keys.read });
      assert.equal(res.status, 200);
      assert.ok(res.body.data.length <= 10);
      seen.push(...res.body.data.map((i: any) => i.id));
      cursor = res.body.pagination.cursor;
      assert.equal(res.body.pagination.hasMore, cursor !== null);
      pages++;
      await new Promise((r) => setTimeout(r, 5));
    } while (cursor);
    inserting = false;
    await writer;

    assert.ok(pages >= 6, `walked ${pages} pages`);
    assert.ok(extra > 0, 'inserts happened during the walk');
    assert.equal(new Set(seen).size, seen.length, 'no repeats');
    for (const id of initial) assert.ok(seen.includes(id), `missing ${id}`);
    const sorted = [...seen].sort().reverse();
    assert.deepEqual(seen, sorted, 'newest first');
  });

  it('a cursor this API did not write is a 422 (one holding U+0000 was a 500); a cursor of another list still pages', async () => {
    const cursorOf = (k: unknown) => Buffer.from(JSON.stringify({ k }), 'utf8').toString('base64url');
    for (const cursor of [cursorOf('inv_\u0000'), cursorOf('a b'), cursorOf(''), cursorOf(7), 'garbage']) {
      const res = await api.request('GET', `/inventory?cursor=${encodeURIComponent(cursor)}`, { key: org.keys.read });
      assert.equal(res.status, 422, `${cursor}: ${res.text}`);
      assert.deepEqual(res.body.error.details.fields, [
        { field: 'query.cursor', message: 'Not a cursor returned by this API.' },
      ]);
    }
    // A keyset position is an id: one from another list is a position like any other, never an error.
    const place = await api.request('POST', '/places', { key: org.keys.write, body: { title: 'P' } });
    const res = await api.request('GET', `/inventory?cursor=${cursorOf(place.body.data.id)}`, { key: org.keys.read });
    assert.equal(res.status, 200, res.text);
  });

  it('defaults to 25 items a page', async () => {
    const res = await api.request('GET', '/inventory', { key: org.keys.read });
    assert.equal(res.body.data.length, 25);
    assert.equal(res.body.pagination.hasMore, true);
  });
});
