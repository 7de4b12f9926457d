import type { Box } from '../ocr-types.js';
import { checkpoint } from '../photo-stop.js';
import type { TextBox } from './db-postprocess.js';
import type { DetectOptions, PaddleOcr, RecognizeOptions } from './paddle-ocr.js';
import { parsePriceLine } from './price-line.js';
import { resampleRegion, toRgb, type RawImage } from './raw-image.js';

/** A price read off a tag: the price line's box in the photo's pixels, its value, the text read and its confidence. */
export type PaddleTagPrice = { box: Box; value: number; text: string; confidence: number };

/** What both readers share. */
export type PriceReadOptions = {
  /** The detection's post-processing (thresholds, unclip ratio) and tiling; the scale is the reader's. */
  detection?: Omit<DetectOptions, 'maxSide' | 'upscale'>;
  recognition?: RecognizeOptions;
  /** Readings less sure than this are not prices. */
  minConfidence?: number;
  /**
   * Lines more than this many times wider than tall are not read: a price, even "¥12,800", is a
   * short line, and the recogniser's time is in proportion to a line's width.
   */
  maxAspect?: number;
  /**
   * Read each tag's price line a second time in a box widened to the left by this share of its
   * height (0: don't). The detector's box can miss a narrow leading "1" (129 read as 29): its
   * stroke alone is too thin a region to survive the detector's minimum size. Widening both ways
   * took in the next mark on the right as well (129 read as 1291).
   */
  secondLook?: number;
};

export type PaddleTagOptions = PriceReadOptions & {
  /**
   * The longest side the detector sees over the whole photo. Several sides: detection at each
   * scale, the lines found merged (the detector misses some lines at one scale that it finds at
   * another).
   */
  maxSide?: number | number[];
  /** Lines found at two scales overlapping by more than this IoU are one line, read in the union of their boxes. */
  mergeIou?: number;
  /**
   * Tags found by other means (the paper-colour label finder, a tag detector): each one that no
   * price line found over the whole photo stands on is read on its own with readTagPriceInBox,
   * where the enlarged crop shows the detector print it missed at the photo's scale.
   */
  tagBoxes?: Box[];
  /** The side the tags of `tagBoxes` are scaled to (readTagPriceInBox's cropSide; its default otherwise). */
  cropSide?: number;
};

export type InBoxOptions = PriceReadOptions & {
  /** The tag crop is scaled so that its longest side is this many pixels before detection. */
  cropSide?: number;
  /** Margin added around the given box on each side, as a share of its width and height. */
  margin?: number;
};

type PriceLine = PaddleTagPrice & { height: number };

// Chosen on the tune half of the real photos (scripts/eval/paddle-tags.ts: 75 tags on 10 photos).
// Whole photo, tags right end to end: 69 at 1280 px, 72 at 1600, 74 at 1920 (1920 is a 1080p
// photo's own size: the detector misses the print of small tags below it), 74 at 960 and 1920
// together for more time. With the label finder's boxes as tagBoxes: 74 at 1280 and at 1600.
// The second look turned a 29 back into 129. minConfidence, maxAspect, the DB thresholds and
// the crop size were not tuned: no tune tag turned on them.
const READ_DEFAULTS = { minConfidence: 0.5, maxAspect: 6, secondLook: 0.5 };
// Over the whole photo, lines wider than 4.5 times their height are not read (D263): on the tune
// half, 38 of 527 lines and 15 % of the recogniser's pixels, and not one of their 141 price lines.
const WHOLE_DEFAULTS = { ...READ_DEFAULTS, maxAspect: 4.5, maxSide: 1920 as number | number[], mergeIou: 0.3 };
const IN_BOX_DEFAULTS = { ...READ_DEFAULTS, cropSide: 480, margin: 0.05 };

/**
 * Every tag price in a shelf photo: the lines the detector finds over the whole photo, kept when
 * they read as a price, and of the price lines that stand together on one tag (the big price with
 * the small print of the price before or after tax beside it) the tallest, which is the price the
 * tag is about. Tags given in `tagBoxes` that no price line stands on are then read one by one.
 */
export async function readTagPricesPaddle(
  ocr: PaddleOcr,
  image: Buffer | RawImage,
  options: PaddleTagOptions = {},
): Promise<PaddleTagPrice[]> {
  const o = { ...WHOLE_DEFAULTS, ...options };
  const rgb = await toRgb(image);
  const found: TextBox[] = [];
  for (const side of Array.isArray(o.maxSide) ? o.maxSide : [o.maxSide])
    found.push(...(await ocr.detectRgb(rgb, { ...o.detection, maxSide: side })));
  const boxes = mergeOverlapping(found, o.mergeIou).filter((b) => b.x1 - b.x0 <= o.maxAspect * (b.y1 - b.y0));
  // Of the price lines standing on one tag only the tallest is kept, so the lines are read tallest
  // first and a line standing on a tag that already has its price is not read at all: the same
  // prices as reading every line, for fewer readings (78 → 72 lines a photo on the tune half, D263).
  const kept: PriceLine[] = [];
  for (const { score: _score, ...box } of [...boxes].sort((a, b) => b.y1 - b.y0 - (a.y1 - a.y0))) {
    if (onKeptTag(kept, box)) continue;
    checkpoint();
    const [reading] = await ocr.recognizeBoxes(rgb, [box], o.recognition);
    const line = priceLine(box, reading!.text, reading!.confidence, o.minConfidence);
    if (line) kept.push(line);
  }
  kept.sort((a, b) => a.box.y0 - b.box.y0 || a.box.x0 - b.box.x0);
  if (o.secondLook) await lookAgain(ocr, rgb, kept, o);
  const prices: PaddleTagPrice[] = kept.map(({ height: _h, ...price }) => price);
  for (const tag of o.tagBoxes ?? []) {
    checkpoint();
    if (prices.some((p) => holdsCentre(tag, p.box))) continue;
    const price = await readTagPriceInBox(ocr, rgb, tag, options);
    if (price) prices.push(price);
  }
  return prices;
}

/**
 * The price on one tag whose box is known (a tag detector's, or a labelled one): the box cut out
 * with a margin and scaled up, so that its print is as many pixels tall as the detector expects,
 * text detected there, and the tallest line that reads as a price.
 */
export async function readTagPriceInBox(
  ocr: PaddleOcr,
  image: Buffer | RawImage,
  box: Box,
  options: InBoxOptions = {},
): Promise<PaddleTagPrice | null> {
  const o = { ...IN_BOX_DEFAULTS, ...options };
  const rgb = await toRgb(image);
  const boxes = (await linesInBox(ocr, rgb, box, o)).sort((a, b) => b.y1 - b.y0 - (a.y1 - a.y0));
  // Tallest first, one at a time: the first line that reads as a price is the tallest price line,
  // and the small print below it need not be read at all.
  for (const b of boxes) {
    checkpoint();
    const [reading] = await ocr.recognizeBoxes(rgb, [b], o.recognition);
    const line = priceLine(b, reading!.text, reading!.confidence, o.minConfidence);
    if (!line) continue;
    if (o.secondLook) await lookAgain(ocr, rgb, [line], o);
    const { height: _h, ...price } = line;
    return price;
  }
  return null;
}

/**
 * All the print on one label whose box is known, read by the learned recognizer: its lines found
 * as readTagPriceInBox finds them, read together, and joined top to bottom, left to right; and the
 * price readTagPriceInBox would give (the tallest line that reads as a price), for labels whose
 * price is a bare number.
 */
export async function readLabelInBox(
  ocr: PaddleOcr,
  rgb: RawImage,
  box: Box,
  options: InBoxOptions = {},
): Promise<{ text: string; price: number | null }> {
  const o = { ...IN_BOX_DEFAULTS, ...options };
  const lines = await linesInBox(ocr, rgb, box, o);
  if (lines.length === 0) return { text: '', price: null };
  checkpoint();
  const readings = await ocr.recognizeBoxes(rgb, lines, o.recognition);
  const read = lines.map((b, i) => ({ b, ...readings[i]! }));
  const tallest = read
    .map((l) => priceLine(l.b, l.text, l.confidence, o.minConfidence))
    .filter((l): l is PriceLine => l !== null)
    .sort((a, b) => b.height - a.height)[0];
  if (tallest && o.secondLook) await lookAgain(ocr, rgb, [tallest], o);
  // One text line: centres within half a line's height of each other.
  read.sort((p, q) => {
    const same = Math.abs(p.b.y0 + p.b.y1 - q.b.y0 - q.b.y1) / 2 < Math.min(p.b.y1 - p.b.y0, q.b.y1 - q.b.y0) / 2;
    return same ? p.b.x0 - q.b.x0 : p.b.y0 - q.b.y0;
  });
  return { text: read.map((l) => l.text).join(' '), price: tallest?.value ?? null };
}

/**
 * The text lines on one box of the photo: the box cut out with a margin and scaled up, so that its
 * print is as many pixels tall as the detector expects, and lines detected there, in photo pixels.
 */
async function linesInBox(
  ocr: PaddleOcr,
  rgb: RawImage,
  box: Box,
  o: typeof IN_BOX_DEFAULTS & InBoxOptions,
): Promise<Box[]> {
  const mx = (box.x1 - box.x0) * o.margin;
  const my = (box.y1 - box.y0) * o.margin;
  const region = {
    x0: Math.max(0, box.x0 - mx),
    y0: Math.max(0, box.y0 - my),
    x1: Math.min(rgb.width, box.x1 + mx),
    y1: Math.min(rgb.height, box.y1 + my),
  };
  const w = region.x1 - region.x0;
  const h = region.y1 - region.y0;
  if (w < 4 || h < 4) return [];
  // Scaled to a multiple of 32 a side, so that the detector's own resize is the identity.
  const scale = o.cropSide / Math.max(w, h);
  const cw = Math.max(32, Math.round((w * scale) / 32) * 32);
  const ch = Math.max(32, Math.round((h * scale) / 32) * 32);
  const crop: RawImage = { data: resampleRegion(rgb, region, cw, ch), width: cw, height: ch, channels: 3 };
  const found = await ocr.detectRgb(crop, { ...o.detection, maxSide: Math.max(cw, ch) });
  // Back to the photo's pixels, to be read from the photo's own pixels rather than the enlarged crop.
  return found
    .map((b) => ({
      x0: region.x0 + (b.x0 * w) / cw,
      y0: region.y0 + (b.y0 * h) / ch,
      x1: region.x0 + (b.x1 * w) / cw,
      y1: region.y0 + (b.y1 * h) / ch,
    }))
    .filter((b) => b.x1 - b.x0 <= o.maxAspect * (b.y1 - b.y0));
}

function priceLine(box: Box, text: string, confidence: number, minConfidence: number): PriceLine | null {
  const value = parsePriceLine(text);
  if (value === null || confidence < minConfidence) return null;
  return { box, value, text, confidence, height: box.y1 - box.y0 };
}

/**
 * Whether a line stands on a tag whose price line is already kept (kept lines are taken tallest
 * first): its centre is less than 1.5 times the kept line's height from the kept line's box
 * across, and from its centre down. A tag's big price and its small print (the price before or
 * after tax) sit that close, while neighbouring tags on a rail are a whole tag width (three or more
 * price heights) apart.
 */
function onKeptTag(kept: PriceLine[], box: Box): boolean {
  const cx = (box.x0 + box.x1) / 2;
  const cy = (box.y0 + box.y1) / 2;
  return kept.some((k) => {
    const reach = 1.5 * k.height;
    return cx > k.box.x0 - reach && cx < k.box.x1 + reach && Math.abs((k.box.y0 + k.box.y1) / 2 - cy) < reach;
  });
}

/**
 * The second look (PriceReadOptions.secondLook), in place: a line's reading is replaced only when
 * the widened box reads as a price of the same digits with one more in front, so that it can
 * restore a digit the first box cut off but never trade a price for a neighbour's.
 */
async function lookAgain(
  ocr: PaddleOcr,
  rgb: RawImage,
  lines: PriceLine[],
  o: { secondLook: number; minConfidence: number; recognition?: RecognizeOptions },
): Promise<void> {
  // Only where something is printed in the strip the widening adds: a blank strip holds no digit
  // to restore, and the second reading of a price line was an eighth of readShelfTags' time (D280).
  const looked = lines.filter(({ box, height }) => inkBeside(rgb, box, height * o.secondLook));
  if (looked.length === 0) return;
  const boxes = looked.map(({ box, height }) => ({ ...box, x0: Math.max(0, box.x0 - height * o.secondLook) }));
  const readings = await ocr.recognizeBoxes(rgb, boxes, o.recognition);
  looked.forEach((line, i) => {
    const { text, confidence } = readings[i]!;
    const value = parsePriceLine(text);
    if (value === null || confidence < o.minConfidence) return;
    const before = digitsOf(line.value);
    const after = digitsOf(value);
    if (after.length === before.length + 1 && after.endsWith(before)) Object.assign(line, { value, text, confidence });
  });
}

/**
 * Whether the strip `width` pixels wide left of a line's box shows print: a stroke there as dark
 * (or, on dark paper, as light) against its surroundings as the line's own print is against its
 * paper, taken as the brightness range between the 5th and 95th percentiles of the green channel.
 * A strip with under a quarter of the line's range is bare paper: nothing a second look could add.
 */
export function inkBeside(rgb: RawImage, box: Box, width: number): boolean {
  const y0 = Math.max(0, Math.floor(box.y0));
  const y1 = Math.min(rgb.height, Math.ceil(box.y1));
  const x1 = Math.min(rgb.width, Math.max(0, Math.floor(box.x0)));
  const x0 = Math.max(0, Math.floor(box.x0 - width));
  if (x1 - x0 < 1 || y1 - y0 < 2) return false;
  const strip = spread(rgb, x0, y0, x1, y1);
  const line = spread(rgb, x1, y0, Math.min(rgb.width, Math.ceil(box.x1)), y1);
  return strip >= 0.25 * line;
}

/** The green channel's range between its 5th and 95th percentiles over a rectangle of the image. */
function spread(rgb: RawImage, x0: number, y0: number, x1: number, y1: number): number {
  const histogram = new Uint32Array(256);
  let n = 0;
  for (let y = y0; y < y1; y++)
    for (
      let x = x0, p = (y * rgb.width + x0) * rgb.channels + (rgb.channels >= 3 ? 1 : 0);
      x < x1;
      x++, p += rgb.channels
    ) {
      histogram[rgb.data[p]!]!++;
      n++;
    }
  if (n === 0) return 0;
  const at = (share: number) => {
    for (let v = 0, seen = 0; v < 256; v++) if ((seen += histogram[v]!) >= share * n) return v;
    return 255;
  };
  return at(0.95) - at(0.05);
}

const digitsOf = (value: number) => String(value).replace(/\D/g, '');

const holdsCentre = (outer: Box, inner: Box) => {
  const cx = (inner.x0 + inner.x1) / 2;
  const cy = (inner.y0 + inner.y1) / 2;
  return cx > outer.x0 && cx < outer.x1 && cy > outer.y0 && cy < outer.y1;
};

function iou(a: Box, b: Box): number {
  const inter =
    Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
  return inter / ((a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter);
}

/**
 * One box for each line found at several scales: boxes overlapping by more than `threshold` IoU
 * are replaced by their union, since a scale that clipped a narrow leading "1" off a price and
 * one that did not both found the same line.
 */
function mergeOverlapping(boxes: TextBox[], threshold: number): TextBox[] {
  const out: TextBox[] = [];
  for (const box of [...boxes].sort((a, b) => b.score - a.score)) {
    const same = out.find((o) => iou(o, box) > threshold);
    if (!same) {
      out.push({ ...box });
      continue;
    }
    same.x0 = Math.min(same.x0, box.x0);
    same.y0 = Math.min(same.y0, box.y0);
    same.x1 = Math.max(same.x1, box.x1);
    same.y1 = Math.max(same.y1, box.y1);
  }
  return out;
}
