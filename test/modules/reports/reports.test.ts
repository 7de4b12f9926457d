import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../../src/db/sql.js';
import { newId } from '../../../src/lib/ids.js';
import { roundShares } from '../../../src/modules/reports/report.service.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';

describe('reports', () => {
  let api: TestApi;
  let org: TestOrg;
  const place = { gb: '', fr: '' };

  before(async () => {
    api = await startTestApi();
    org = await createTestOrg(api.runtime);
    const em = api.runtime.orm.em.fork();
    place.gb = (
      await api.request('POST', '/places', {
        key: org.keys.write,
        body: { title: 'London', countryCode: 'GB', channel: 'convenience' },
      })
    ).body.data.id;
    place.fr = (
      await api.request('POST', '/places', {
        key: org.keys.write,
        body: { title: 'Paris', countryCode: 'FR', channel: 'hypermarket' },
      })
    ).body.data.id;
    const product = (brand: string | null, units: number, placeId: string, daysAgo: number, category = 'Drinks') =>
      sql(
        em,
        `insert into products (id, organisation_id, analysis_id, place_id, position, brand, units, on_sale, confidence, confidence_score, match_status, category, created_at)
               values (?, ?, 'an_fixture', ?, ?, ?, ?, false, 'high', 0.9, 'unmatched', ?, now() - (? || ' days')::interval)`,
        [newId('product'), org.id, placeId, Math.floor(Math.random() * 1e9), brand, units, category, String(daysAgo)],
      );
    // Within 30 days: Coke 6+4 (GB), Pepsi 5 (FR), unknown 1 (GB); Fanta 3 in GB, category Soda; outside: Coke 100, 40 days ago.
    await product('Coke', 6, place.gb, 1);
    await product('Coke', 4, place.fr, 2);
    await product('Pepsi', 5, place.fr, 3);
    await product(null, 1, place.gb, 4);
    await product('Fanta', 3, place.gb, 5, 'Soda');
    await product('Coke', 100, place.gb, 40);
    const task = (placeId: string, status: string, score: number | null) =>
      sql(
        em,
        `insert into tasks (id, organisation_id, title, status, place_id, expectation_ids, compliance_score, created_at, updated_at)
               values (?, ?, 't', ?, ?, '[]', ?, now() - interval '1 day', now())`,
        [newId('task'), org.id, status, placeId, score],
      );
    await task(place.gb, 'completed', 66.7);
    await task(place.gb, 'completed', 100);
    await task(place.gb, 'pending', null);
    await task(place.fr, 'cancelled', null);
  });
  after(() => api.close());

  it('share of shelf per brand over the window, with every filter', async () => {
    const res = await api.request('GET', '/reports/share-of-shelf', { key: org.keys.read });
    assert.equal(res.status, 200);
    const d = res.body.data;
    assert.equal(d.periodDays, 30);
    assert.equal(d.totalUnits, 19);
    assert.deepEqual(d.brands, [
      { brand: 'Coke', units: 10, sharePercent: 52.6, productCount: 2 },
      { brand: 'Pepsi', units: 5, sharePercent: 26.3, productCount: 1 },
      { brand: 'Fanta', units: 3, sharePercent: 15.8, productCount: 1 },
      { brand: 'Unknown', units: 1, sharePercent: 5.3, productCount: 1 },
    ]);
    assert.equal(d.brands.reduce((a: number, b: any) => a + b.sharePercent, 0).toFixed(1), '100.0');
    const gb = (
      await api.request('GET', '/reports/share-of-shelf?countries=gb&brands=coke,FANTA', { key: org.keys.read })
    ).body.data;
    assert.deepEqual(
      gb.brands.map((b: any) => [b.brand, b.units, b.sharePercent]),
      [
        ['Coke', 6, 66.7],
        ['Fanta', 3, 33.3],
      ],
    );
    const soda = (
      await api.request('GET', '/reports/share-of-shelf?categories=Soda&channels=convenience', { key: org.keys.read })
    ).body.data;
    assert.deepEqual(
      soda.brands.map((b: any) => b.brand),
      ['Fanta'],
    );
    const longer = (await api.request('GET', '/reports/share-of-shelf?days=60', { key: org.keys.read })).body.data;
    assert.equal(longer.totalUnits, 119);
    assert.equal((await api.request('GET', '/reports/share-of-shelf?days=0', { key: org.keys.read })).status, 422);
    assert.equal(
      (await api.request('GET', '/reports/share-of-shelf?countries=GBR', { key: org.keys.read })).status,
      422,
    );
    const other = await createTestOrg(api.runtime);
    assert.equal(
      (await api.request('GET', '/reports/share-of-shelf', { key: other.keys.read })).body.data.totalUnits,
      0,
    );
  });

  it('store performance per place', async () => {
    const d = (await api.request('GET', '/reports/store-performance', { key: org.keys.read })).body.data;
    assert.deepEqual(d.stores, [
      {
        placeId: place.gb,
        placeName: 'London',
        taskCount: 3,
        completedTasks: 2,
        completionRate: 66.7,
        avgComplianceScore: 83.4,
      },
      {
        placeId: place.fr,
        placeName: 'Paris',
        taskCount: 1,
        completedTasks: 0,
        completionRate: 0,
        avgComplianceScore: null,
      },
    ]);
    const one = (await api.request('GET', `/reports/store-performance?placeId=${place.fr}`, { key: org.keys.read }))
      .body.data;
    assert.equal(one.stores.length, 1);
  });

  it('rounds shares so they sum to 100', () => {
    assert.deepEqual(roundShares([1, 1, 1]), [33.4, 33.3, 33.3]);
    assert.deepEqual(roundShares([]), []);
    assert.deepEqual(roundShares([0, 0]), [0, 0]);
  });
});
