import sharp from 'sharp';
import { PSM } from 'tesseract.js';
import { barRegions, CELL_W } from './bar-regions.js';
import { pgm, type Box, type OcrPool } from './ocr-pool.js';
import { stretchContrast } from './contrast.js';
import { sharpenGrey } from './sharpen.js';
import type { GreyImage } from './photo.js';
import { checkpoint } from './photo-stop.js';
import { count } from './stage-profile.js';

/**
 * A label as read: its text, and where its barcode's bars were seen (in photo pixels), split by
 * whether the symbol has pixels enough a module for the usual decode (`barcodes`) or needs a
 * closer one (`smallBarcodes`, decoded only when the text names nothing).
 */
export type LabelReading = { box: Box; text: string; barcodes: Box[]; smallBarcodes: Box[] };

/** How a label is enlarged for OCR: the label's height in pixels, and whether edges are sharpened. */
export type LabelView = { height: number; sharpen: boolean };
/**
 * The first reading: labels 110 px high. Tesseract's time grows with the pixels it is given
 * (150 px cost a third more for no more products found on the synthetic set).
 */
export const FIRST_LOOK: LabelView = { height: 110, sharpen: false };
/** A second, closer and sharpened look at a label the first reading could not make sense of. */
export const CLOSE_LOOK: LabelView = { height: 220, sharpen: true };

/**
 * The narrowest label barcode decoded at the usual enlargement, in photo pixels: an EAN-13 is 95
 * modules wide, and below about 1.5 pixels a module a twice-enlarged decode reads nothing on the
 * first generator's labels (0 of 192, ~0.9 px a module). Narrower symbols are still decodable from
 * about 1 px a module, closer and sharpened, and are tried where a label's text names nothing.
 */
const MIN_SYMBOL_WIDTH = 143;

/** `view`: the view's height, for the stage profile's counts. */
type Prepared = {
  box: Box;
  view: number;
  pixels: Buffer;
  width: number;
  height: number;
  barcodes: Box[];
  smallBarcodes: Box[];
};

/**
 * A label's pixels, cut out of the grey photo (the box widened to whole pixels, kept inside the photo).
 * Cut here: handing libvips the whole photo to extract from copies all of it.
 */
export function cutLabel(
  grey: GreyImage,
  box: Box,
): { region: Buffer; left: number; top: number; width: number; height: number } {
  const left = Math.max(0, Math.floor(box.x0));
  const top = Math.max(0, Math.floor(box.y0));
  const width = Math.max(0, Math.min(grey.width, Math.ceil(box.x1)) - left);
  const height = Math.max(0, Math.min(grey.height, Math.ceil(box.y1)) - top);
  const region = Buffer.allocUnsafe(width * height);
  for (let y = 0; y < height; y++)
    grey.data.copy(region, y * width, (top + y) * grey.width + left, (top + y) * grey.width + left + width);
  return { region, left, top, width, height };
}

function median(data: Uint8Array): number {
  const histogram = new Uint32Array(256);
  for (let i = 0; i < data.length; i++) histogram[data[i]!]!++;
  for (let v = 0, seen = 0; v < 256; v++) if ((seen += histogram[v]!) >= data.length / 2) return v;
  return 255;
}

/** One label's crop: enlarged to the view's height, contrast-stretched, its barcode found and blanked. */
async function prepare(grey: GreyImage, box: Box, view: LabelView): Promise<Prepared | null> {
  const { region, left, top, width, height } = cutLabel(grey, box);
  if (width < 8 || height < 8) return null;
  const scale = Math.max(1, Math.min(4, view.height / height));
  const { data, info } = await sharp(region, { raw: { width, height, channels: 1 } })
    .resize(Math.round(width * scale))
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  checkpoint();
  // sharp's sharpen() and normalise(), in that order, done here: each costs libvips a LabS or LAB
  // round trip per crop where these cost table lookups, for the very same pixels (sharpen.ts, contrast.ts).
  if (view.sharpen) sharpenGrey(data, info.width, info.height);
  stretchContrast(data);
  // Light print on dark paper (dark, red or green labels; red and green are dark in the green
  // channel too): tesseract reads dark print on light, so such a crop is turned over. Paper is most
  // of a label, so its median says which it is.
  if (median(data) < 110) for (let i = 0; i < data.length; i++) data[i] = 255 - data[i]!;
  const bars = barRegions(data, info.width, info.height, { trimEdges: true });
  for (const b of bars) for (let y = b.y0; y < b.y1; y++) data.fill(255, y * info.width + b.x0, y * info.width + b.x1);
  const toImage = (b: Box): Box => ({
    x0: left + b.x0 / scale,
    y0: top + b.y0 / scale,
    x1: left + b.x1 / scale,
    y1: top + b.y1 / scale,
  });
  // Bars padded by a cell each side: the symbol's own width decides how closely it must be looked at.
  const wide = (b: Box) => (b.x1 - b.x0 - 2 * CELL_W) / scale >= MIN_SYMBOL_WIDTH;
  return {
    box,
    view: view.height,
    pixels: data,
    width: info.width,
    height: info.height,
    barcodes: bars.filter(wide).map(toImage),
    smallBarcodes: bars.filter((b) => !wide(b)).map(toImage),
  };
}

/** White space between labels in the sheet: more than a line gap, so no text line spans two labels. */
const GAP = 24;

type Word = Awaited<ReturnType<OcrPool['words']>>[number];

/** A word tesseract is sure of: three letters or digits or more, read with confidence. */
const sure = (w: Word) => w.confidence >= 80 && (w.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= 3;

/**
 * One sheet: the crops stacked on white and OCR'd in a single pass, each word handed back to the
 * crop whose strip it lies in.
 *
 * Tesseract lays out a sheet as one block, and a few crops that are not labels (a pack's window with
 * a cut-off line of light print along its edge) can throw that layout for the whole sheet: a sheet of
 * 19 crops, four of them labels whose print reads cleanly alone, gave no sure word at all. So a
 * sheet of several crops with no sure word on it is read again, once, as two halves (a blank sheet
 * that is blank indeed costs two more calls; on sheets that read, nothing).
 */
async function readSheet(ocr: OcrPool, placed: Prepared[], split = true): Promise<Word[][]> {
  if (placed.length === 0) return [];
  const sheetWidth = Math.max(1, ...placed.map((p) => p.width)) + 2 * GAP;
  const tops: number[] = [];
  let y = GAP;
  for (const p of placed) {
    tops.push(y);
    y += p.height + GAP;
  }
  const sheet = Buffer.alloc(sheetWidth * y, 255);
  placed.forEach((p, i) => {
    for (let row = 0; row < p.height; row++)
      p.pixels.copy(sheet, (tops[i]! + row) * sheetWidth + GAP, row * p.width, (row + 1) * p.width);
  });
  checkpoint();
  count(`sheets${placed[0]!.view}`);
  count(`sheetPx${placed[0]!.view}`, sheetWidth * y);
  count(`crops${placed[0]!.view}`, placed.length);
  const words = await ocr.words(pgm(sheet, sheetWidth, y), PSM.SINGLE_BLOCK);
  if (split && placed.length >= SPLIT_AT && !words.some(sure)) {
    const half = Math.ceil(placed.length / 2);
    return [
      ...(await readSheet(ocr, placed.slice(0, half), false)),
      ...(await readSheet(ocr, placed.slice(half), false)),
    ];
  }
  const texts = placed.map(() => [] as Word[]);
  for (const w of words) {
    const mid = (w.bbox.y0 + w.bbox.y1) / 2;
    const i = tops.findIndex((t, k) => mid >= t && mid < t + placed[k]!.height);
    if (i >= 0) texts[i]!.push(w);
  }
  return texts;
}

/** The fewest crops on a sheet that is read again in halves when it shows no sure word. */
const SPLIT_AT = 4;

/**
 * Reads labels: each crop enlarged to the view's height, contrast-stretched and its barcode
 * blanked (found, not decoded, here), then stacked on white sheets and OCR'd a sheet at a time.
 * A sheet, not a call per label: each call to tesseract costs a fixed 20 ms or so before it reads
 * anything. `sheets` cuts the boxes into separate sheets (at those indices): crops from different
 * finders (paper, print) are read apart, so one finder's misfits cannot spoil the other's reading.
 */
export async function readLabels(
  ocr: OcrPool,
  grey: GreyImage,
  boxes: Box[],
  view: LabelView = FIRST_LOOK,
  sheets: number[] = [],
): Promise<LabelReading[]> {
  const prepared = await Promise.all(boxes.map((box) => prepare(grey, box, view)));
  const cuts = [0, ...sheets.filter((c) => c > 0 && c < boxes.length), boxes.length];
  const texts: (Word[] | undefined)[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const part = prepared.slice(cuts[k], cuts[k + 1]);
    const placed = part.filter((p): p is Prepared => p !== null);
    const read = await readSheet(ocr, placed);
    let n = 0;
    for (const p of part) texts.push(p ? read[n++] : undefined);
  }
  return boxes.map((box, i) => {
    const p = prepared[i];
    if (!p) return { box, text: '', barcodes: [], smallBarcodes: [] };
    return {
      box,
      text: (texts[i] ?? []).map((w) => w.text).join(' '),
      barcodes: p.barcodes,
      smallBarcodes: p.smallBarcodes,
    };
  });
}
