// `npx tsx scripts/eval/paddle-tags.ts [--dataset ../shared/datasets] [--half tune|heldOut|both] [--verbose]`
// (run on one core, as the service runs one recognition per core: `taskset -c 0 npx tsx ...`)
// Measures the PaddleOCR price-tag reader (src/modules/recognition/engines/local/paddle/) on the real
// shelf photos of --dataset, read in place, for each half of the written split apart
// (scripts/eval/real-split.json: choices are made looking at `tune` only; `heldOut` is only counted):
// - end to end: prices read over the whole photo; a labelled tag is right when the tallest price line
//   found on it (its centre inside the tag's box, or IoU > 0.3) reads the tag's price. Price lines on
//   no labelled tag are counted too: the photos have unlabelled tags, so that is an upper bound on
//   false prices.
// - in the labelled boxes: readTagPriceInBox on each labelled tag box.
// - seconds per photo end to end and in detection, milliseconds per line recognised, and the
//   process's peak RSS (getrusage's maxrss). With --label-finder the finder's time and the reads in
//   its boxes count in the end-to-end figures.
// Options given below override the reader's defaults, for trying choices on the tune half.
// --verbose prints each tag read wrong and each price off the labelled tags, for the tune half only.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { centreInside, iou } from '../../src/modules/recognition/engines/local/boxes.js';
import { findLabelBoxes } from '../../src/modules/recognition/engines/local/label-finder.js';
import type { Box } from '../../src/modules/recognition/engines/local/ocr-types.js';
import { PaddleOcr } from '../../src/modules/recognition/engines/local/paddle/paddle-ocr.js';
import {
  readTagPriceInBox,
  readTagPricesPaddle,
  type InBoxOptions,
  type PaddleTagOptions,
  type PaddleTagPrice,
} from '../../src/modules/recognition/engines/local/paddle/paddle-tag-prices.js';
import { toRgb } from '../../src/modules/recognition/engines/local/paddle/raw-image.js';
import { decodePhoto } from '../../src/modules/recognition/engines/local/photo.js';
import { readRealSplit, readRealTags } from './real-tags.js';

const repo = resolve(import.meta.dirname, '../..');
const { values } = parseArgs({
  options: {
    dataset: { type: 'string', default: resolve(repo, '../shared/datasets') },
    half: { type: 'string', default: 'both' },
    verbose: { type: 'boolean', default: false },
    // Choices to try (the reader's defaults otherwise).
    // One side, or several separated by commas (detection at each scale, lines merged).
    'max-side': { type: 'string' },
    'merge-iou': { type: 'string' },
    'second-look': { type: 'string' },
    'max-aspect': { type: 'string' },
    'tile-side': { type: 'string' },
    // Also read inside the label finder's boxes (label-finder.ts) that no price line stands on.
    'label-finder': { type: 'boolean', default: false },
    thresh: { type: 'string' },
    'box-thresh': { type: 'string' },
    unclip: { type: 'string' },
    'min-width': { type: 'string' },
    'batch-size': { type: 'string' },
    'min-confidence': { type: 'string' },
    'crop-side': { type: 'string' },
    margin: { type: 'string' },
  },
});
const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
const defined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
const options: PaddleTagOptions & InBoxOptions = defined({
  maxSide: values['max-side']?.includes(',') ? values['max-side'].split(',').map(Number) : num(values['max-side']),
  mergeIou: num(values['merge-iou']),
  secondLook: num(values['second-look']),
  maxAspect: num(values['max-aspect']),
  minConfidence: num(values['min-confidence']),
  cropSide: num(values['crop-side']),
  margin: num(values.margin),
  detection: defined({
    tileSide: num(values['tile-side']),
    threshold: num(values.thresh),
    boxThreshold: num(values['box-thresh']),
    unclipRatio: num(values.unclip),
  }),
  recognition: defined({ minWidth: num(values['min-width']), batchSize: num(values['batch-size']) }),
});

const root = join(values.dataset, 'real-shelf-price-tags');
if (!existsSync(join(root, 'price_boxes_gt.csv'))) {
  console.error(`no ${join(root, 'price_boxes_gt.csv')}: pass --dataset`);
  process.exit(1);
}
const tags = readRealTags(root);
const split = readRealSplit() as Record<string, string[]>;
const halves = values.half === 'both' ? ['tune', 'heldOut'] : [values.half];

const onTag = (line: Box, tag: Box) => centreInside(line, tag) || iou(line, tag) > 0.3;

const ocr = await PaddleOcr.create();
// One photo read before timing: the first runs of a session allocate its buffers.
await readTagPricesPaddle(ocr, readFileSync(join(root, 'images', split.tune![0]!)), options);

// Detection and recognition timed apart by wrapping the instance's two stages.
let detectMs = 0;
let recognizeMs = 0;
let recognizedLines = 0;
const detectRgb = ocr.detectRgb.bind(ocr);
const recognizeBoxes = ocr.recognizeBoxes.bind(ocr);
ocr.detectRgb = async (...args) => {
  const t = performance.now();
  const out = await detectRgb(...args);
  detectMs += performance.now() - t;
  return out;
};
ocr.recognizeBoxes = async (...args) => {
  const t = performance.now();
  const out = await recognizeBoxes(...args);
  recognizeMs += performance.now() - t;
  recognizedLines += args[1].length;
  return out;
};

const rows: Record<string, Record<string, number | string>> = {};
for (const half of halves) {
  const photos = split[half]!;
  const mine = tags.filter((t) => photos.includes(t.image));
  // The held-out half is counted, never looked at tag by tag.
  const verbose = values.verbose && half === 'tune';
  let right = 0;
  let noCandidate = 0;
  let wrongValue = 0;
  let outside = 0;
  let inBoxRight = 0;
  let wholeMs = 0;
  let wholeDetectMs = 0;
  let wholeLines = 0;
  let wholeRecognizeMs = 0;
  let inBoxMs = 0;
  for (const photo of photos) {
    const bytes = readFileSync(join(root, 'images', photo));
    const photoTags = mine.filter((t) => t.image === photo);
    detectMs = recognizeMs = recognizedLines = 0;
    let t = performance.now();
    const tagBoxes = values['label-finder'] ? await findLabelBoxes(await decodePhoto(bytes)) : undefined;
    const read = await readTagPricesPaddle(ocr, bytes, { ...options, tagBoxes });
    wholeMs += performance.now() - t;
    wholeDetectMs += detectMs;
    wholeRecognizeMs += recognizeMs;
    wholeLines += recognizedLines;
    const used = new Set<PaddleTagPrice>();
    for (const tag of photoTags) {
      const on = read.filter((r) => onTag(r.box, tag.box));
      on.forEach((r) => used.add(r));
      const tallest = on.sort((a, b) => b.box.y1 - b.box.y0 - (a.box.y1 - a.box.y0))[0];
      if (!tallest) noCandidate++;
      else if (tallest.value === tag.price) right++;
      else wrongValue++;
      if (verbose && tallest?.value !== tag.price)
        console.log(`${photo} ${JSON.stringify(tag.box)} gt ${tag.price}: ${on.map((r) => r.text).join(' | ') || '-'}`);
    }
    outside += read.filter((r) => !used.has(r)).length;
    if (verbose)
      for (const r of read.filter((r) => !used.has(r)))
        console.log(`${photo} outside ${JSON.stringify(r.box)} ${r.text} ${r.confidence.toFixed(2)}`);
    // In the labelled boxes: the photo decoded once, as a caller holding the photo would.
    const rgb = await toRgb(bytes);
    t = performance.now();
    for (const tag of photoTags) {
      const got = await readTagPriceInBox(ocr, rgb, tag.box, options);
      if (got?.value === tag.price) inBoxRight++;
      else if (verbose) console.log(`${photo} in box ${JSON.stringify(tag.box)} gt ${tag.price}: ${got?.text}`);
    }
    inBoxMs += performance.now() - t;
  }
  rows[half] = {
    photos: photos.length,
    tags: mine.length,
    endToEndRight: right,
    noCandidate,
    wrongValue,
    pricesOffLabelledTags: outside,
    inBoxRight,
    wholePhotoSeconds: +(wholeMs / 1000 / photos.length).toFixed(3),
    detectSecondsPerPhoto: +(wholeDetectMs / 1000 / photos.length).toFixed(3),
    recognizeMsPerLine: +(wholeRecognizeMs / Math.max(1, wholeLines)).toFixed(2),
    linesPerPhoto: +(wholeLines / photos.length).toFixed(1),
    inBoxSecondsPerTag: +(inBoxMs / 1000 / Math.max(1, mine.length)).toFixed(3),
  };
}
await ocr.close();
console.log(JSON.stringify(options));
console.table(rows);
console.log(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
