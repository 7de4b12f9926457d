import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RequestContext } from '@mikro-orm/core';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';

describe("an organisation's catalogue as analyses take it: kept while unchanged, read again after any change", () => {
  let api: TestApi;
  let org: TestOrg;
  // As activities run them: one service per process, each call in its own context.
  const inContext = <T>(fn: () => Promise<T>) => RequestContext.create(api.runtime.orm.em, fn);
  const catalogue = () => inContext(() => api.runtime.services.analysisProcessing.catalogue(org.id));
  const skus = async () => (await catalogue()).map((e) => `${e.sku}:${e.expectedPrice}`).sort();

  before(async () => {
    api = await startTestApi();
    org = await createTestOrg(api.runtime);
  });
  after(() => api?.close());

  it('answers from what it kept while nothing changed, and sees an item added, changed or deleted', async () => {
    const inventory = api.runtime.services.inventory;
    const a = await inContext(() =>
      inventory.create(org.id, { sku: 'A-1', brand: 'Acme', name: 'Beans', expectedPrice: 1 } as never),
    );
    const first = await catalogue();
    assert.deepEqual(await skus(), ['A-1:1']);
    // Unchanged: the very entries kept, not read and indexed again.
    assert.equal(await catalogue(), first);

    const b = await inContext(() =>
      inventory.create(org.id, { sku: 'B-2', brand: 'Acme', name: 'Soup', expectedPrice: 2 } as never),
    );
    assert.deepEqual(await skus(), ['A-1:1', 'B-2:2']);
    await inContext(() => inventory.update(org.id, a.id, { expectedPrice: 1.5 } as never));
    assert.deepEqual(await skus(), ['A-1:1.5', 'B-2:2']);
    // One deleted and another added: the same number of items as before.
    await inContext(() => inventory.delete(org.id, b.id));
    await inContext(() =>
      inventory.create(org.id, { sku: 'C-3', brand: 'Acme', name: 'Rice', expectedPrice: 3 } as never),
    );
    assert.deepEqual(await skus(), ['A-1:1.5', 'C-3:3']);
    // Another organisation's catalogue is its own.
    const other = await createTestOrg(api.runtime);
    assert.deepEqual(await inContext(() => api.runtime.services.analysisProcessing.catalogue(other.id)), []);
  });
});
