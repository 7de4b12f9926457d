import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { RecognitionEngines } from '../../../../src/modules/recognition/engines/index.js';
import { RecognitionRejectedError, type Recognizer } from '../../../../src/modules/recognition/recognizer.js';
import { UNDECODABLE_IMAGE_MESSAGE } from '../../../../src/temporal/contracts/image-errors.js';
import { startTestApi, type TestApi } from '../../../helpers/api.js';
import { createTestOrg } from '../../../helpers/fixtures.js';
import { startImageHost, type ImageHost } from '../../../helpers/image-host.js';
import { waitFor } from '../../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../../helpers/worker.js';

const dir = resolve(import.meta.dirname, '../../../fixtures/synthetic-shelves');
const catalogue = JSON.parse(readFileSync(`${dir}/catalogue.json`, 'utf8'));
const truthOf = (name: string) =>
  JSON.parse(readFileSync(`${dir}/${name}.json`, 'utf8')) as {
    products: {
      sku: string;
      price: number;
      discountedPrice: number | null;
      shelfPosition: string;
      bbox: [number, number, number, number];
      label: { bbox: [number, number, number, number] };
    }[];
  };

/** Intersection over union of two [x0, y0, x1, y1] rectangles. */
function iou(a: number[], b: number[]): number {
  const ix = Math.max(0, Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!));
  const iy = Math.max(0, Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!));
  const area = (r: number[]) => (r[2]! - r[0]!) * (r[3]! - r[1]!);
  return (ix * iy) / (area(a) + area(b) - ix * iy);
}

/** A shelf photo cut short: its header (and so its format and size) reads, its pixels do not all decode. */
const truncated = (() => {
  const whole = readFileSync(`${dir}/shelf-03.jpg`);
  return whole.subarray(0, Math.floor(whole.length * 0.6));
})();

describe('local recognizer on the committed synthetic shelves (offline: OCR data and barcode wasm from node_modules)', () => {
  const engines = new RecognitionEngines();
  let recognizer: Recognizer;
  let api: TestApi;
  let host: ImageHost;
  let stopWorkers: () => Promise<void>;

  before(async () => {
    recognizer = await engines.create('local');
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('local-recognizer') });
    stopWorkers = (await startTestWorkers(api.runtime, recognizer)).stop;
    host = await startImageHost({
      '/shelf-02.jpg': { type: 'image/jpeg', body: readFileSync(`${dir}/shelf-02.jpg`) },
      '/truncated.jpg': { type: 'image/jpeg', body: truncated },
    });
  });
  /** The analysis once it is no longer processing, as the API answers it. */
  const finished = (id: string, key: string) =>
    waitFor(
      'the analysis',
      async () => {
        const a = await api.request('GET', `/analyses/${id}`, { key });
        return a.body.data.status !== 'processing' && a.body.data;
      },
      120_000,
      500,
    );
  after(async () => {
    await stopWorkers();
    await host.close();
    await api.close();
    await engines.close();
  });

  for (const name of ['shelf-02', 'shelf-10']) {
    it(`reads ${name}: catalogue items with their prices and positions, nothing invented`, async () => {
      const image = readFileSync(`${dir}/${name}.jpg`);
      const meta = await sharp(image).metadata();
      const products = await recognizer.recognize({
        image,
        contentType: 'image/jpeg',
        width: meta.width!,
        height: meta.height!,
        catalogue,
        runIndex: 0,
      });
      const truth = truthOf(name);
      const bySku = new Map(truth.products.map((p) => [p.sku, p]));
      const found = products.filter((p) => p.sku);
      const right = found.filter((p) => bySku.has(p.sku!));
      assert.equal(right.length, found.length, 'every catalogue item reported is on the shelf');
      assert.ok(right.length / truth.products.length >= 0.8, `recall ${right.length}/${truth.products.length}`);
      const priced = right.filter(
        (p) =>
          p.price === bySku.get(p.sku!)!.price && (p.discountedPrice ?? null) === bySku.get(p.sku!)!.discountedPrice,
      );
      assert.ok(priced.length / right.length >= 0.9, `prices ${priced.length}/${right.length}`);
      for (const p of right) {
        assert.equal(p.shelfPosition, bySku.get(p.sku!)!.shelfPosition, p.sku!);
        assert.ok(p.confidenceScore > 0 && p.confidenceScore <= 1);
      }
      // Every product is located (for the console's drawing): its box covers its packs and label as the
      // generator drew them (IoU at least 0.6; 0.72 to 0.94 when written).
      for (const p of products) assert.ok(p.box, `${p.sku ?? p.description} has a box`);
      for (const p of right) {
        const t = bySku.get(p.sku!)!;
        const truthBox = [
          Math.min(t.bbox[0], t.label.bbox[0]),
          Math.min(t.bbox[1], t.label.bbox[1]),
          Math.max(t.bbox[2], t.label.bbox[2]),
          Math.max(t.bbox[3], t.label.bbox[3]),
        ];
        const b = p.box!;
        const found = [
          b.x * meta.width!,
          b.y * meta.height!,
          (b.x + b.width) * meta.width!,
          (b.y + b.height) * meta.height!,
        ];
        assert.ok(iou(found, truthBox) >= 0.6, `${p.sku}: IoU ${iou(found, truthBox).toFixed(2)}`);
      }
    });
  }

  it('returns these products end to end through the API with the default recognizer', async () => {
    const org = await createTestOrg(api.runtime, { credits: 5 });
    const bulk = await api.request('POST', '/inventory/bulk', {
      key: org.keys.write,
      body: {
        items: catalogue.map((c: any) => ({
          sku: c.sku,
          upc: c.upc,
          brand: c.brand,
          name: c.name,
          category: c.category,
          expectedPrice: c.expectedPrice,
          currency: c.currency,
        })),
      },
    });
    assert.equal(bulk.status, 200);
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/shelf-02.jpg') },
    });
    const done = await finished(res.body.data.id, org.keys.read);
    assert.equal(done.status, 'completed');
    const truth = truthOf('shelf-02');
    const skus = new Set(truth.products.map((p) => p.sku));
    const matched = done.products.filter((p: any) => p.matchStatus === 'matched');
    assert.ok(matched.length >= 12, `${matched.length} matched`);
    assert.ok(matched.every((p: any) => skus.has(p.matchedInventorySku)));
    assert.ok(done.totalValue > 0);
  });

  it("refuses a photo that does not decode in full as IMAGE_NOT_AN_IMAGE, in the fetch's words, from its recognition thread (D282)", async () => {
    assert.equal(recognizer.decodesEveryPhoto, true);
    await assert.rejects(
      recognizer.recognize({
        image: truncated,
        contentType: 'image/jpeg',
        width: 1600,
        height: 1200,
        catalogue,
        runIndex: 0,
      }),
      (err) =>
        err instanceof RecognitionRejectedError &&
        err.code === 'IMAGE_NOT_AN_IMAGE' &&
        err.message === UNDECODABLE_IMAGE_MESSAGE,
    );
  });

  it('a truncated photo through the API fails as it did when the fetch decoded it: IMAGE_NOT_AN_IMAGE, the same message, every pass failed, the credit back, the photo read once', async () => {
    const org = await createTestOrg(api.runtime, { credits: 5 });
    const before = await api.runtime.services.credits.balance(org.id);
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/truncated.jpg') },
    });
    assert.equal(res.status, 202);
    const done = await finished(res.body.data.id, org.keys.read);
    assert.equal(done.status, 'failed');
    assert.deepEqual(done.error, { code: 'IMAGE_NOT_AN_IMAGE', message: 'The body could not be decoded as an image.' });
    assert.equal(done.completedRuns, 0);
    assert.equal(done.failedRuns, done.totalRuns);
    assert.equal(done.products.length, 0);
    assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, before.remaining);
    assert.equal(host.hits.get('/truncated.jpg'), 1);
    // The fetch let it through (its header reads) and the recognition thread's decode refused it.
    const history = await api.runtime.temporal.client.workflow.getHandle(res.body.data.id).fetchHistory();
    const scheduled = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'recognizeImage',
    );
    assert.ok(scheduled.length >= 1, 'recognition was given the photo');
  });
});
