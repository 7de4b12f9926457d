// `npm run eval -- [--images DIR ...] [--dataset ../shared/datasets] [--recognizer local] [--model fast|best] [--engine auto|native|wasm] [--report eval-report.json]`
// Measures a recognizer on every labelled shelf set given (by default both committed ones: the first
// generator's, which recognition is tuned on, and the second generator's, which is for checking only)
// and prints them side by side: precision/recall/F1 of catalogue items, price, position and facing
// accuracy, seconds per image. On the real photos in --dataset: price-tag prices read right end to end
// (the recognizer finds the tags itself) and inside the labelled boxes, for each half of the written
// split (scripts/eval/real-split.json: choices are made on `tune`, `heldOut` is reported apart), and
// the barcode close-ups' decode rate. Writes a JSON report. Asserts nothing.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { RecognitionEngines } from '../../src/modules/recognition/engines/index.js';
import { normalizeGtin } from '../../src/modules/recognition/catalogue-matcher.js';
import { readCloseUp } from '../../src/modules/recognition/engines/local/barcodes.js';
import { centreInside, iou } from '../../src/modules/recognition/engines/local/boxes.js';
import { OcrPool } from '../../src/modules/recognition/engines/local/ocr-pool.js';
import { PaddleOcr } from '../../src/modules/recognition/engines/local/paddle/paddle-ocr.js';
import { readTagPriceInBox } from '../../src/modules/recognition/engines/local/paddle/paddle-tag-prices.js';
import { parseOcrEngine, parseOcrModel } from '../../src/modules/recognition/engines/local/ocr-models.js';
import { resolveOcrEngine } from '../../src/modules/recognition/engines/local/native-tesseract.js';
import { readShelfTags } from '../../src/modules/recognition/engines/local/shelf-tags.js';
import { readTagPrice } from '../../src/modules/recognition/engines/local/tag-price.js';
import type { CatalogueEntry, Recognizer } from '../../src/modules/recognition/recognizer.js';
import { childProcesses } from '../../test/helpers/child-processes.js';
import { runSecretsKey } from '../lib/run-secrets-key.js';
import { shelfInput } from '../../test/helpers/shelf-photos.js';
import { readRealSplit, readRealTags } from './real-tags.js';
import { scoreShelf, type ShelfTruth } from './score.js';

const DEFAULT_SETS = ['test/fixtures/synthetic-shelves', 'test/fixtures/second-generator-shelves'];

const { values } = parseArgs({
  options: {
    recognizer: { type: 'string', default: process.env.RECOGNIZER ?? 'local' },
    images: { type: 'string', multiple: true },
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

// 1. The labelled synthetic sets.
async function evaluateSet(recognizer: Recognizer, dir: string) {
  const catalogue = JSON.parse(readFileSync(join(dir, 'catalogue.json'), 'utf8')) as (CatalogueEntry & {
    upc: string;
  })[];
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'catalogue.json')
    .sort()
    .slice(0, values.limit ? Number(values.limit) : undefined);
  const truthOf = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as ShelfTruth;
  // What the worker hands the recognizer for a photo (read and measured outside the timing).
  const inputOf = (truth: ShelfTruth) => shelfInput(readFileSync(join(dir, truth.image)), catalogue);
  const perImage = [];
  const sum = { truth: 0, found: 0, falsePositives: 0, pricesRight: 0, positionsRight: 0, unitsRight: 0 };
  let seconds = 0,
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
    const s = scoreShelf(products, truth, catalogue);
    for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += s[k];
    perImage.push({
      set: basename(dir),
      image: truth.image,
      size: `${input.width}x${input.height}`,
      ...s,
      recall: round(s.found / Math.max(1, s.truth)),
      seconds: round(took, 2),
    });
  }
  const precision = sum.found / Math.max(1, sum.found + sum.falsePositives);
  const recall = sum.found / Math.max(1, sum.truth);
  return {
    set: dir,
    images: files.length,
    products: sum.truth,
    precision: round(precision),
    recall: round(recall),
    f1: round((2 * precision * recall) / Math.max(1e-9, precision + recall)),
    priceAccuracy: round(sum.pricesRight / Math.max(1, sum.found)),
    positionAccuracy: round(sum.positionsRight / Math.max(1, sum.found)),
    facingsAccuracy: round(sum.unitsRight / Math.max(1, sum.found)),
    secondsPerImage: round(seconds / Math.max(1, files.length), 2),
    // CPU time of this process's threads (OCR and libvips ones included) while recognizing: on a
    // shared machine wall time also counts the other processes' turns, this does not.
    cpuSecondsPerImage: round(cpuSeconds / Math.max(1, files.length), 2),
    perImage,
  };
}

const sets = (values.images ?? DEFAULT_SETS.filter((d) => existsSync(d))).map((d) => resolve(d));
for (const d of sets)
  if (!existsSync(join(d, 'catalogue.json'))) throw new Error(`--images ${d}: no catalogue.json there`);
if (sets.length > 0) {
  runSecretsKey(); // the configuration wants one, though nothing is sealed here
  const engines = new RecognitionEngines();
  const recognizer = await engines.create(values.recognizer!);
  // Start-up is not per image: one photo is read once untimed before any is timed (a worker pays
  // its threads' and OCR's start once in its life).
  const first = sets.map((d) => readdirSync(d).find((f) => f.endsWith('.jpg'))).find(Boolean);
  const warmupStarted = performance.now();
  if (first) {
    const dir = sets.find((d) => existsSync(join(d, first)))!;
    const catalogue = JSON.parse(readFileSync(join(dir, 'catalogue.json'), 'utf8')) as CatalogueEntry[];
    await recognizer.recognize(await shelfInput(readFileSync(join(dir, first)), catalogue));
  }
  report.firstReadSeconds = round((performance.now() - warmupStarted) / 1000, 2);
  const results = [];
  for (const dir of sets) results.push(await evaluateSet(recognizer, dir));
  console.table(results.flatMap((r) => r.perImage));
  console.table(Object.fromEntries(results.map(({ set, perImage: _, ...r }) => [basename(set), r])));
  report.sets = results;
  helpersPeak = Math.max(helpersPeak, childProcesses().peakRssMb);
  // The recognition threads (their OCR helpers and text models) end here: the real photos below are
  // read by models of this process's own, and a worker never holds both.
  await engines.close();
}

// 2. Real photos (read in place, never copied): price tags on shelves, and barcode close-ups.
if (values.dataset) {
  const root = resolve(values.dataset);
  const ocr = new OcrPool(1, model, engine);
  // The learned text detector and recognizer (PP-OCRv4), as the recognition threads load it.
  const text = await PaddleOcr.create();
  const tagsDir = join(root, 'real-shelf-price-tags');
  const tagsCsv = join(tagsDir, 'price_boxes_gt.csv');
  if (existsSync(tagsCsv)) {
    const split = readRealSplit();
    const rows = readRealTags(tagsDir);
    const halves: Record<string, unknown> = {};
    for (const [half, photos] of [
      ['tune', split.tune],
      ['heldOut', split.heldOut],
    ] as const) {
      const tags = rows.filter((r) => photos.includes(r.image));
      let inBoxes = 0,
        inBoxesLearned = 0,
        found = 0,
        endToEnd = 0,
        unmatchedPrices = 0,
        inBoxSeconds = 0,
        endToEndSeconds = 0,
        endToEndCpu = 0;
      for (const image of photos) {
        const bytes = readFileSync(join(tagsDir, 'images', image));
        const mine = tags.filter((t) => t.image === image);
        let started = performance.now();
        for (const t of mine) if ((await readTagPrice(ocr, bytes, t.box))?.value === t.price) inBoxes++;
        // The same boxes read by the learned recognizer, as the recognizer's bare-price fallback reads them.
        for (const t of mine) if ((await readTagPriceInBox(text, bytes, t.box))?.value === t.price) inBoxesLearned++;
        inBoxSeconds += (performance.now() - started) / 1000;
        started = performance.now();
        // CPU too: the wall time of a run pinned to one core counts whatever else shares that core.
        const cpu = process.cpuUsage();
        const read = await readShelfTags(text, bytes);
        endToEndSeconds += (performance.now() - started) / 1000;
        const spent = process.cpuUsage(cpu);
        endToEndCpu += (spent.user + spent.system) / 1e6;
        const used = new Set<unknown>();
        for (const t of mine) {
          // A tag box found, or a price line read, on the tag.
          const candidates = read.filter(
            (r) => iou(t.box, r.box) > 0.3 || centreInside(t.box, r.box) || centreInside(r.box, t.box),
          );
          if (candidates.length === 0) continue;
          found++;
          candidates.forEach((c) => used.add(c));
          if (candidates.some((c) => c.price === t.price)) endToEnd++;
        }
        // Prices read where no labelled tag is: a photo's unlabelled tags count here too, so this is an upper bound.
        unmatchedPrices += read.filter((r) => !used.has(r)).length;
      }
      halves[half] = {
        photos: photos.length,
        tags: tags.length,
        endToEndRight: endToEnd,
        tagsFound: found,
        inLabelledBoxesRight: inBoxes,
        inLabelledBoxesRightLearned: inBoxesLearned,
        pricesOutsideLabelledTags: unmatchedPrices,
        endToEndSecondsPerPhoto: round(endToEndSeconds / photos.length, 2),
        endToEndCpuSecondsPerPhoto: round(endToEndCpu / photos.length, 2),
        inBoxSecondsPerTag: round(inBoxSeconds / Math.max(1, tags.length), 3),
      };
    }
    const sumOf = (k: string) =>
      Object.values(halves).reduce((s: number, h) => s + (h as Record<string, number>)[k]!, 0);
    halves.all = {
      tags: sumOf('tags'),
      endToEndRight: sumOf('endToEndRight'),
      tagsFound: sumOf('tagsFound'),
      inLabelledBoxesRight: sumOf('inLabelledBoxesRight'),
      inLabelledBoxesRightLearned: sumOf('inLabelledBoxesRightLearned'),
    };
    console.table(halves);
    report.realPriceTags = {
      ...halves,
      split: 'scripts/eval/real-split.json',
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
    // Split like the shelf photos: the rows of ground_truth.csv in even places are the tune half
    // (the decoder's variants were chosen looking at them), the odd ones are held out.
    let right = 0;
    const rightBy = { tune: 0, heldOut: 0 };
    const started = performance.now();
    for (const [i, [file, , value]] of (rows as string[][]).entries()) {
      const found = await readCloseUp(readFileSync(join(root, 'barcode-photos', file!)));
      if (found && found.gtin === normalizeGtin(value!)) {
        right++;
        rightBy[i % 2 === 0 ? 'tune' : 'heldOut']++;
      }
    }
    report.realBarcodes = {
      photos: rows.length,
      decodedRight: right,
      tune: `${rightBy.tune} of ${Math.ceil(rows.length / 2)}`,
      heldOut: `${rightBy.heldOut} of ${Math.floor(rows.length / 2)}`,
      rate: round(right / rows.length),
      secondsPerPhoto: round((performance.now() - started) / 1000 / rows.length, 3),
      source: 'ZXing black-box test images, Apache-2.0',
    };
  }
  helpersPeak = Math.max(helpersPeak, childProcesses().peakRssMb);
  await ocr.close();
  await text.close();
}

clearInterval(sampler);
report.peakRssMb = Math.round(peakRss / 1024 / 1024) + helpersPeak;
const summary = {
  ...report,
  sets: (report.sets as { perImage: unknown }[] | undefined)?.map((s) => ({ ...s, perImage: undefined })),
};
console.log(JSON.stringify(summary, null, 2));
writeFileSync(values.report!, JSON.stringify(report, null, 2));
console.log(`report written to ${values.report}`);
process.exit(0);
