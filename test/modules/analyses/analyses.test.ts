import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { sql } from '../../../src/db/sql.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../../helpers/image-host.js';
import { product, ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { batchCompleted, waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

/**
 * Width 100: a coke shelf; width 120: pepsi on sale; width 130: a product whose text holds what
 * PostgreSQL refuses (a model's answer can); any other width: nothing.
 */
const recognizer = new ScriptedRecognizer(({ width, runIndex }) => {
  if (width === 100) {
    return [
      product({
        brand: 'Coca-Cola',
        description: 'Coke 330ml can',
        upc: '5449000000996',
        units: runIndex === 0 ? 4 : 3,
        price: 1.29,
        currency: 'GBP',
        shelfPosition: 'eye-level',
        shelfSection: 'left',
        fixtureType: 'fridge',
        confidenceScore: 0.95,
      }),
      product({
        brand: 'Fanta',
        description: 'Fanta Orange 330ml',
        units: 2,
        price: 1.1,
        currency: 'GBP',
        shelfPosition: 'bottom',
        shelfSection: 'right',
        confidenceScore: 0.6,
      }),
    ];
  }
  if (width === 120) {
    return [
      product({
        brand: 'Pepsi',
        description: 'Pepsi Max 330 ml',
        units: 5,
        price: 1.5,
        discountedPrice: 1.0,
        onSale: true,
        currency: 'GBP',
        confidenceScore: 0.7,
        shelfPosition: 'top',
        shelfSection: 'center',
      }),
    ];
  }
  if (width === 130) {
    return [
      product({
        brand: 'Nul\u0000Brand',
        description: 'Half a pair \ud83d here',
        sku: 'SKU\u0000X',
        units: 1,
        confidenceScore: 0.5,
      }),
    ];
  }
  return [];
});

/** A noisy PNG whose last 40 % is missing: its header reads, its pixels do not. */
async function truncatedPng(): Promise<Buffer> {
  const whole = await sharp({
    create: {
      width: 300,
      height: 200,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  return whole.subarray(0, Math.floor(whole.length * 0.6));
}

describe('analyses end to end (real dev server, real PostgreSQL, real image host)', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let stopWorkers: () => Promise<void>;
  let placeId: string;

  before(async () => {
    api = await startTestApi({
      TASK_QUEUE_PREFIX: uniquePrefix('analyses'),
      ANALYSIS_RUNS: 2,
      IMAGE_MAX_BYTES: 200_000,
    });
    stopWorkers = (await startTestWorkers(api.runtime, recognizer)).stop;
    org = await createTestOrg(api.runtime, { credits: 100, maxBatchSize: 50 });
    host = await startImageHost({
      '/coke.png': { body: await pngOfWidth(100) },
      '/pepsi.png': { body: await pngOfWidth(120) },
      '/unstorable.png': { body: await pngOfWidth(130) },
      '/empty.png': { body: await pngOfWidth(50) },
      '/page.html': { type: 'text/html', body: '<html>not an image</html>' },
      '/broken.png': { body: Buffer.from('\x89PNG\r\n\x1a\n garbage') },
      // A photo cut short behind a valid header: only a full decode tells. This recognizer does not
      // decode photos (no `decodesEveryPhoto`, as the openai engine): the fetch decodes it (D282).
      '/truncated.png': { body: await truncatedPng() },
      '/huge.png': { body: Buffer.alloc(300_000, 7) },
    });
    const place = await api.request('POST', '/places', { key: org.keys.write, body: { title: 'Store 1' } });
    placeId = place.body.data.id;
    await api.request('POST', '/inventory', {
      key: org.keys.write,
      body: {
        sku: 'COKE-330',
        brand: 'Coca-Cola',
        name: 'Coca-Cola Classic 330ml',
        upc: '05449000000996',
        category: 'Beverages',
        expectedPrice: 1.29,
        currency: 'GBP',
      },
    });
    await api.request('POST', '/inventory', {
      key: org.keys.write,
      body: { sku: 'PEPSI-MAX-330', brand: 'Pepsi', name: 'Pepsi Max 330ml', category: 'Beverages' },
    });
  });
  after(async () => {
    await stopWorkers();
    await host.close();
    await api.close();
  });

  const final = (id: string) =>
    waitFor(`analysis ${id} to finish`, async () => {
      const res = await api.request('GET', `/analyses/${id}`, { key: org.keys.read });
      return res.body.data.status !== 'processing' && res.body.data;
    });

  it('completes one analysis: merged passes, catalogue matches, counters, products, event, credit', async () => {
    const before = await api.runtime.services.credits.balance(org.id);
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: {
        imageUrl: host.url('/coke.png'),
        placeId,
        externalId: 'ext-coke-1',
        metadata: { aisle: '4' },
        callbackUrl: 'https://example.com/hook',
      },
    });
    assert.equal(res.status, 202);
    assert.equal(res.body.data.status, 'processing');
    assert.equal(res.body.data.externalId, 'ext-coke-1');
    assert.match(res.body.data.callbackSecret, /^cbsec_[0-9a-f]{48}$/);
    assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, before.remaining - 1);

    const a = await final(res.body.data.id);
    assert.equal(a.status, 'completed');
    assert.equal(a.totalRuns, 2);
    assert.equal(a.completedRuns, 2);
    assert.equal(a.failedRuns, 0);
    assert.equal(a.productCount, 2);
    assert.equal(a.error, null);
    assert.equal(a.placeId, placeId);
    assert.deepEqual(a.metadata, { aisle: '4' });
    assert.equal(a.callbackSecret, undefined, 'the secret is never returned again');
    const coke = a.products.find((p: any) => p.brand === 'Coca-Cola');
    assert.equal(coke.matchStatus, 'matched');
    assert.equal(coke.matchedInventorySku, 'COKE-330');
    assert.equal(coke.sku, 'COKE-330');
    assert.equal(coke.category, 'Beverages');
    assert.equal(coke.units, 4, 'median of 4 and 3 facings rounds to 4');
    assert.equal(coke.confidence, 'high');
    assert.equal(coke.fixtureType, 'fridge');
    const fanta = a.products.find((p: any) => p.brand === 'Fanta');
    assert.equal(fanta.matchStatus, 'unmatched');
    assert.equal(fanta.matchedInventorySku, null);
    assert.equal(a.totalUnits, 6);
    assert.equal(a.totalValue, 7.36, '4 x 1.29 + 2 x 1.10');

    const [event] = await sql<{ type: string; data: any }>(
      api.runtime.orm.em.fork(),
      `select type, data from events where analysis_id = ?`,
      [a.id],
    );
    assert.equal(event!.type, 'analysis.completed');
    assert.deepEqual(
      Object.keys(event!.data).sort(),
      [
        'completedAt',
        'externalId',
        'id',
        'metadata',
        'productCount',
        'status',
        'totalRuns',
        'totalUnits',
        'totalValue',
      ].sort(),
    );
    assert.equal(event!.data.totalValue, 7.36);
  });

  it('probable matches by brand and name, discount prices and onSale', async () => {
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/pepsi.png') },
    });
    const a = await final(res.body.data.id);
    const [pepsi] = a.products;
    assert.equal(pepsi.matchStatus, 'probable');
    assert.equal(pepsi.matchedInventorySku, 'PEPSI-MAX-330');
    assert.equal(pepsi.onSale, true);
    assert.equal(pepsi.discountedPrice, 1);
    assert.equal(pepsi.confidence, 'medium');
    assert.equal(a.totalValue, 5);
  });

  it('keeps a product whose text PostgreSQL refuses as sent: NUL left out, a lone surrogate as U+FFFD, such an identifier dropped', async () => {
    // Before, the products insert was refused and the analysis failed (RESULT_NOT_STORABLE) for
    // what one field of one product held.
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/unstorable.png') },
    });
    const a = await final(res.body.data.id);
    assert.equal(a.status, 'completed');
    assert.equal(a.products.length, 1);
    assert.equal(a.products[0].brand, 'NulBrand');
    assert.equal(a.products[0].description, 'Half a pair \ufffd here');
    assert.equal(a.products[0].sku, null);
  });

  for (const [path, code] of [
    ['/page.html', 'IMAGE_NOT_AN_IMAGE'],
    ['/broken.png', 'IMAGE_NOT_AN_IMAGE'],
    ['/truncated.png', 'IMAGE_NOT_AN_IMAGE'],
    ['/huge.png', 'IMAGE_TOO_LARGE'],
    ['/missing.png', 'IMAGE_HTTP_ERROR'],
  ] as const) {
    it(`fails ${path} with ${code} and gives the credit back`, async () => {
      const before = await api.runtime.services.credits.balance(org.id);
      const res = await api.request('POST', '/analyses', {
        key: org.keys.write,
        body: { imageUrl: host.url(path), externalId: `bad-${path}` },
      });
      assert.equal(res.status, 202);
      const a = await final(res.body.data.id);
      assert.equal(a.status, 'failed');
      assert.equal(a.error.code, code);
      assert.equal(a.failedRuns, 2);
      assert.equal(a.products.length, 0);
      assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, before.remaining);
      const ledger = await sql<{ reason: string; n: number }>(
        api.runtime.orm.em.fork(),
        `select reason, count(*)::int as n from credit_entries where analysis_id = ? group by reason order by reason`,
        [a.id],
      );
      assert.deepEqual(ledger, [
        { reason: 'analysis', n: 1 },
        { reason: 'refund', n: 1 },
      ]);
      const [event] = await sql<{ data: any }>(
        api.runtime.orm.em.fork(),
        `select data from events where analysis_id = ?`,
        [a.id],
      );
      assert.deepEqual(event!.data, { id: a.id, externalId: `bad-${path}`, status: 'failed', failedRuns: 2 });
    });
  }

  it('fails an unreachable host with IMAGE_UNREACHABLE after retries', async () => {
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: 'http://127.0.0.1:1/shelf.png' },
    });
    const a = await final(res.body.data.id);
    assert.equal(a.error.code, 'IMAGE_UNREACHABLE');
    // The fetch's retry policy ran out: it runs as a local activity (local-fetch), whose marker records
    // the attempt it ended on, the 4th.
    const history = await api.runtime.temporal.client.workflow.getHandle(res.body.data.id).fetchHistory();
    const fetches = (history.events ?? [])
      .map((e) => e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data)
      .filter((d): d is Uint8Array => d != null)
      .map((d) => JSON.parse(Buffer.from(d).toString('utf8')) as { activity_type: string; attempt: number })
      .filter((m) => m.activity_type === 'fetchImage');
    assert.deepEqual(
      fetches.map((m) => m.attempt),
      [4],
      `fetch markers ${JSON.stringify(fetches)}`,
    );
  });

  it('validates submissions, naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ imageUrl: 'not a url' }, 'imageUrl'],
      [{ imageUrl: 'ftp://x/y.png' }, 'imageUrl'],
      [{}, 'imageUrl'],
      [{ imageUrl: 'https://x/y.png', callbackUrl: 'http://insecure.example.com' }, 'callbackUrl'],
      [
        {
          imageUrl: 'https://x/y.png',
          metadata: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])),
        },
        'metadata',
      ],
      [{ imageUrl: 'https://x/y.png', metadata: { k: 'v'.repeat(501) } }, 'metadata.k'],
      [{ imageUrl: 'https://x/y.png', metadata: { k: 5 } }, 'metadata.k'],
      [{ imageUrl: 'https://x/y.png', placeId: 'pl_nope' }, 'placeId'],
    ];
    const before = await api.runtime.services.credits.balance(org.id);
    for (const [body, field] of cases) {
      const res = await api.request('POST', '/analyses', { key: org.keys.write, body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.ok(
        res.body.error.details.fields.some((f: any) => f.field === field),
        `${field} in ${JSON.stringify(res.body)}`,
      );
    }
    assert.equal(
      (await api.runtime.services.credits.balance(org.id)).remaining,
      before.remaining,
      'refused submissions cost nothing',
    );
  });

  it('runs a batch of 50 to the end; products are queryable by every filter; credits match the ledger', async () => {
    const images = Array.from({ length: 50 }, (_, i) => ({
      imageUrl: host.url(i % 10 === 9 ? '/page.html' : i % 2 ? '/pepsi.png' : '/coke.png'),
      externalId: `batch-${i}`,
      ...(i < 10 ? { placeId } : {}),
    }));
    const tooBig = await api.request('POST', '/analyses/batch', {
      key: org.keys.write,
      body: { images: [...images, images[0]] },
    });
    assert.equal(tooBig.status, 422, 'this organisation allows 50');

    const before = await api.runtime.services.credits.balance(org.id);
    const res = await api.request('POST', '/analyses/batch', { key: org.keys.write, body: { images } });
    assert.equal(res.status, 202);
    assert.equal(res.body.data.creditsConsumed, 50);
    assert.equal(res.body.data.analyses.length, 50);
    const batchId = res.body.data.batchId;
    assert.match(batchId, /^bat_/);
    assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, before.remaining - 50);

    const batch = await batchCompleted(api, batchId, org.keys.read);
    assert.equal(batch.total, 50);
    assert.equal(batch.failed, 5);
    assert.equal(batch.completed, 45);
    assert.equal(batch.processing, 0);

    const expectedRefund = 5;
    assert.equal(
      (await api.runtime.services.credits.balance(org.id)).remaining,
      before.remaining - 50 + expectedRefund,
    );
    const [ledger] = await sql<{ sum: number }>(
      api.runtime.orm.em.fork(),
      `select coalesce(sum(plan_delta + payg_delta), 0)::int as sum from credit_entries where organisation_id = ?`,
      [org.id],
    );
    assert.equal(
      ledger!.sum,
      (await api.runtime.services.credits.balance(org.id)).remaining,
      'balance equals the ledger sum',
    );

    const first = await api.request('GET', `/analyses/${res.body.data.analyses[0].id}`, { key: org.keys.read });
    assert.equal(first.body.data.batchId, batchId);

    const byAnalysis = await api.request('GET', `/products?analysisId=${res.body.data.analyses[0].id}`, {
      key: org.keys.read,
    });
    assert.equal(byAnalysis.body.data.length, 2);
    const byPlace = await api.request('GET', `/products?placeId=${placeId}&limit=100`, { key: org.keys.read });
    assert.ok(byPlace.body.data.length >= 9 && byPlace.body.data.every((p: any) => p.placeId === placeId));
    const byBrand = await api.request('GET', `/products?brand=PEPSI&limit=100`, { key: org.keys.read });
    assert.ok(byBrand.body.data.length >= 20 && byBrand.body.data.every((p: any) => p.brand === 'Pepsi'));
    const byCategory = await api.request('GET', `/products?category=Beverages&limit=100`, { key: org.keys.read });
    assert.ok(byCategory.body.data.length >= 1 && byCategory.body.data.every((p: any) => p.category === 'Beverages'));

    const failedList = await api.request('GET', `/analyses?status=failed&limit=100`, { key: org.keys.read });
    assert.ok(failedList.body.data.filter((a: any) => a.externalId?.startsWith('batch-')).length === 5);
    const byExternal = await api.request('GET', `/analyses?externalId=batch-3`, { key: org.keys.read });
    assert.equal(byExternal.body.data.length, 1);
    const byPlaceList = await api.request('GET', `/analyses?placeId=${placeId}`, { key: org.keys.read });
    assert.ok(byPlaceList.body.data.length >= 10);
    assert.equal(
      (await api.request('GET', '/analyses', { key: org.keys.read })).body.data.length,
      50,
      'the list defaults to 50',
    );
  });

  it('finds the workflow in Temporal by analysis id and by external id', async () => {
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/empty.png'), externalId: 'find-me-in-temporal', placeId },
    });
    const id = res.body.data.id;
    await final(id);
    const client = api.runtime.temporal.client;
    const description = await client.workflow.getHandle(id).describe();
    assert.equal(description.type, 'analysisWorkflow');
    assert.equal(
      description.memo?.imageHost,
      '127.0.0.1',
      'the memo keeps the host only (no signed-URL path or query)',
    );
    const found = await waitFor('visibility', async () => {
      const list = [];
      for await (const wf of client.workflow.list({ query: `ExternalId = "find-me-in-temporal"` })) list.push(wf);
      return list.length > 0 && list;
    });
    assert.equal(found[0]!.workflowId, id);
    const byId = [];
    for await (const wf of client.workflow.list({
      query: `AnalysisId = "${id}" AND OrganisationId = "${org.id}" AND PlaceId = "${placeId}"`,
    }))
      byId.push(wf);
    assert.equal(byId.length, 1);
  });

  it('answers 404 for analyses and batches of another organisation', async () => {
    const other = await createTestOrg(api.runtime);
    const list = await api.request('GET', '/analyses', { key: org.keys.read });
    const id = list.body.data[0].id;
    assert.equal((await api.request('GET', `/analyses/${id}`, { key: other.keys.read })).status, 404);
    assert.equal(
      (await api.request('GET', `/products?analysisId=${id}`, { key: other.keys.read })).body.data.length,
      0,
    );
  });
});
