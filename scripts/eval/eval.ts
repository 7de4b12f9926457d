// `npm run eval -- [--recognizer local] [--model fast|best] [--engine auto|native|wasm] [--images test/fixtures/synthetic-shelves] [--dataset ../shared/datasets] [--report eval-report.json]`
// Measures a recognizer: on a labelled synthetic set, precision/recall/F1 of catalogue items, price,
// position and facing accuracy, seconds per image; on the real photos in --dataset, price-tag price
// accuracy (in the labelled boxes, and the share of tags the label finder finds on its own) and
// barcode decode rate. Prints a table and writes a JSON report. Asserts nothing.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import '../../src/modules/recognition/engines/index.js';
import { normalizeGtin } from '../../src/modules/recognition/catalogue-matcher.js';
import { readCloseUp } from '../../src/modules/recognition/engines/local/barcodes.js';
import { findLabelBoxes } from '../../src/modules/recognition/engines/local/label-finder.js';
import { decodePhoto } from '../../src/modules/recognition/engines/local/photo.js';
import { OcrPool } from '../../src/modules/recognition/engines/local/ocr-pool.js';
import { parseOcrEngine, parseOcrModel } from '../../src/modules/recognition/engines/local/ocr-models.js';
import { resolveOcrEngine } from '../../src/modules/recognition/engines/local/native-tesseract.js';
import { childProcesses } from '../lib/child-processes.js';
import { readTagPrice } from '../../src/modules/recognition/engines/local/tag-price.js';
import { createRecognizer, type CatalogueEntry } from '../../src/modules/recognition/recognizer.js';

const { values } = parseArgs({
  options: {
    recognizer: { type: 'string', default: process.env.RECOGNIZER ?? 'local' },
    images: { type: 'string', default: 'test/fixtures/synthetic-shelves' },
    dataset: { type: 'string' },
    report: { type: 'string', default: 'eval-report.json' },
    limit: { type: 'string' },
    // The local recognizer's OCR model (OCR_MODEL): fast (the default) or best.
    model: { type: 'string', default: process.env.OCR_MODEL ?? 'fast' },
    // Which tesseract reads (OCR_ENGINE): auto (the default: native where libtesseract is installed), native or wasm.
    engine: { type: 'string', default: process.env.OCR_ENGINE ?? 'auto' },
  },
});
const model = parseOcrModel(values.model, '--model');
// The recognizer made below reads its model from the configuration, as the worker does.
process.env.OCR_MODEL = model;
// auto decided here, once, so that the report names the engine that read.
const engine = resolveOcrEngine(parseOcrEngine(values.engine, '--engine'), model);
process.env.OCR_ENGINE = engine;

let peakRss = 0;
// The native engine's helper processes count too: their peaks (VmHWM), read while they run, added to this process's.
let helpersPeak = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;
const report: Record<string, unknown> = {
  recognizer: values.recognizer,
  model,
  engine,
  date: new Date().toISOString(),
};

type Box = { x0: number; y0: number; x1: number; y1: number };
function iou(a: Box, b: Box): number {
  const inter =
    Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
  return inter / ((a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter);
}

type Truth = {
  image: string;
  products: {
    sku: string;
    upc: string;
    units: number;
    price: number;
    discountedPrice: number | null;
    onSale: boolean;
    shelfPosition: string;
    shelfSection: string;
  }[];
};

// 1. The labelled synthetic set.
if (values.images && existsSync(values.images)) {
  const dir = resolve(values.images);
  const catalogue = JSON.parse(readFileSync(join(dir, 'catalogue.json'), 'utf8')) as (CatalogueEntry & {
    upc: string;
  })[];
  const recognizer = await createRecognizer(values.recognizer!);
  // Start-up is not per image: the first photo is read once untimed, then every photo is timed (the
  // first one included). A blank photo did not warm enough: OCR's first real sheet still cost ~0.4 s
  // more than the next ones (the wasm's first compiled paths), ~0.03 s an image of 12, and a worker
  // pays that once in its life (before the thread pool, the OCR pool's ~1 s start came on top).
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'catalogue.json')
    .sort()
    .slice(0, values.limit ? Number(values.limit) : undefined);
  const truthOf = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Truth;
  // What the worker hands the recognizer for a photo (read and measured outside the timing).
  const inputOf = async (truth: Truth) => {
    const bytes = readFileSync(join(dir, truth.image));
    const meta = await sharp(bytes).metadata();
    return {
      image: bytes,
      contentType: 'image/jpeg',
      width: meta.width!,
      height: meta.height!,
      catalogue,
      runIndex: 0,
    };
  };
  const warmupStarted = performance.now();
  if (files[0]) await recognizer.recognize(await inputOf(truthOf(files[0])));
  const firstSeconds = (performance.now() - warmupStarted) / 1000;
  const perImage = [];
  let tp = 0,
    fp = 0,
    fn = 0,
    priceRight = 0,
    positionRight = 0,
    unitsRight = 0,
    seconds = 0,
    cpuSeconds = 0;
  for (const file of files) {
    const truth = truthOf(file);
    const input = await inputOf(truth);
    const helpersCpu = childProcesses().cpuSeconds;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const products = await recognizer.recognize(input);
    const took = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    seconds += took;
    // The native engine reads in helper processes: their CPU time is the photo's too.
    cpuSeconds += (used.user + used.system) / 1e6 + childProcesses().cpuSeconds - helpersCpu;
    const skuOf = (p: { sku: string | null; upc: string | null }) =>
      p.sku ?? catalogue.find((c) => normalizeGtin(c.upc) === normalizeGtin(p.upc))?.sku ?? null;
    const predicted = new Map<string, (typeof products)[number]>();
    for (const p of products) {
      const sku = skuOf(p);
      if (sku && !predicted.has(sku)) predicted.set(sku, p);
    }
    const truthBySku = new Map(truth.products.map((p) => [p.sku, p]));
    let itp = 0,
      ifp = 0,
      iprice = 0,
      ipos = 0,
      iunits = 0;
    for (const [sku, p] of predicted) {
      const t = truthBySku.get(sku);
      if (!t) {
        ifp++;
        continue;
      }
      itp++;
      if (p.price === t.price && (p.discountedPrice ?? null) === (t.discountedPrice ?? null)) iprice++;
      if (p.shelfPosition === t.shelfPosition && p.shelfSection === t.shelfSection) ipos++;
      if (p.units === t.units) iunits++;
    }
    const ifn = truth.products.length - itp;
    tp += itp;
    fp += ifp;
    fn += ifn;
    priceRight += iprice;
    positionRight += ipos;
    unitsRight += iunits;
    const precision = itp / Math.max(1, itp + ifp);
    const recall = itp / Math.max(1, truth.products.length);
    perImage.push({
      image: truth.image,
      truth: truth.products.length,
      found: itp,
      falsePositives: ifp,
      precision: round(precision),
      recall: round(recall),
      pricesRight: iprice,
      positionsRight: ipos,
      unitsRight: iunits,
      seconds: round(took, 2),
    });
  }
  helpersPeak = Math.max(helpersPeak, childProcesses().peakRssMb);
  const precision = tp / Math.max(1, tp + fp);
  const recall = tp / Math.max(1, tp + fn);
  report.synthetic = {
    images: files.length,
    precision: round(precision),
    recall: round(recall),
    f1: round((2 * precision * recall) / Math.max(1e-9, precision + recall)),
    priceAccuracy: round(priceRight / Math.max(1, tp)),
    positionAccuracy: round(positionRight / Math.max(1, tp)),
    facingsAccuracy: round(unitsRight / Math.max(1, tp)),
    secondsPerImage: round(seconds / Math.max(1, files.length), 2),
    // The untimed first read: start-up included.
    firstReadSeconds: round(firstSeconds, 2),
    // CPU time of this process's threads (OCR and libvips ones included) while recognizing: on a
    // shared machine wall time also counts the other processes' turns, this does not.
    cpuSecondsPerImage: round(cpuSeconds / Math.max(1, files.length), 2),
    perImage,
  };
  console.table(perImage);
}

// 2. Real photos (read in place, never copied): price tags on shelves, and barcode close-ups.
if (values.dataset) {
  const root = resolve(values.dataset);
  const ocr = new OcrPool(1, model, engine);
  const tagsCsv = join(root, 'real-shelf-price-tags', 'price_boxes_gt.csv');
  if (existsSync(tagsCsv)) {
    const rows = readFileSync(tagsCsv, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((r) => r.split(','));
    const cache = new Map<string, Buffer>();
    let right = 0,
      read = 0;
    const started = performance.now();
    for (const [image, x1, y1, x2, y2, gt] of rows as string[][]) {
      if (!cache.has(image!)) cache.set(image!, readFileSync(join(root, 'real-shelf-price-tags', 'images', image!)));
      const result = await readTagPrice(ocr, cache.get(image!)!, { x0: +x1!, y0: +y1!, x1: +x2!, y1: +y2! });
      if (result) read++;
      if (result?.value === Number(gt)) right++;
    }
    const secondsPerTag = round((performance.now() - started) / 1000 / rows.length, 3);
    // The same tags as the recognizer finds them on its own: its label finder's boxes, not the labelled
    // ones. A tag counts as found when a box holds its centre or overlaps it by IoU > 0.3.
    let found = 0,
      foundRight = 0;
    for (const image of new Set(rows.map((r) => r[0]!))) {
      const boxes = await findLabelBoxes(await decodePhoto(cache.get(image)!));
      for (const [, x1, y1, x2, y2, gt] of rows.filter((r) => r[0] === image)) {
        const tag = { x0: +x1!, y0: +y1!, x1: +x2!, y1: +y2! };
        const box = boxes.find(
          (b) =>
            iou(tag, b) > 0.3 ||
            ((tag.x0 + tag.x1) / 2 > b.x0 &&
              (tag.x0 + tag.x1) / 2 < b.x1 &&
              (tag.y0 + tag.y1) / 2 > b.y0 &&
              (tag.y0 + tag.y1) / 2 < b.y1),
        );
        if (!box) continue;
        found++;
        if ((await readTagPrice(ocr, cache.get(image)!, box))?.value === Number(gt)) foundRight++;
      }
    }
    report.realPriceTags = {
      tags: rows.length,
      read,
      right,
      accuracy: round(right / rows.length),
      secondsPerTag,
      labelFinder: { found, recall: round(found / rows.length), pricesRight: foundRight },
      source:
        'Roboflow Universe "Shelf Price detection", CC BY 4.0, via AnujB05/Retail-Shelf-Price-Tag-Recognition-and-OCR',
    };
  }
  const barcodeCsv = join(root, 'barcode-photos', 'ground_truth.csv');
  if (existsSync(barcodeCsv)) {
    const rows = readFileSync(barcodeCsv, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((r) => r.split(','));
    let right = 0;
    const started = performance.now();
    for (const [file, , value] of rows as string[][]) {
      const found = await readCloseUp(readFileSync(join(root, 'barcode-photos', file!)));
      if (found && found.gtin === normalizeGtin(value!)) right++;
    }
    report.realBarcodes = {
      photos: rows.length,
      decodedRight: right,
      rate: round(right / rows.length),
      secondsPerPhoto: round((performance.now() - started) / 1000 / rows.length, 3),
      source: 'ZXing black-box test images, Apache-2.0',
    };
  }
  helpersPeak = Math.max(helpersPeak, childProcesses().peakRssMb);
  await ocr.close();
}

clearInterval(sampler);
report.peakRssMb = Math.round(peakRss / 1024 / 1024) + helpersPeak;
const summary = {
  ...report,
  synthetic: report.synthetic ? { ...(report.synthetic as object), perImage: undefined } : undefined,
};
console.log(JSON.stringify(summary, null, 2));
writeFileSync(values.report!, JSON.stringify(report, null, 2));
console.log(`report written to ${values.report}`);
process.exit(0);
