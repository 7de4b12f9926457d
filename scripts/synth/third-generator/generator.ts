// generate(): the catalogue, then each photo — scene, view, pixels, JSON — written to `out`.
//
// What the JSON says, and the choices behind it:
// - catalogue.json: 72-110 invented products over two or three currencies (GBP, EUR, USD, JPY); each
//   photo uses one currency and shows only that currency's products. EAN-13 codes (UPC-A for USD).
// - products[]: one per label, in row order then left to right. `units` counts the facings side by
//   side (packs stacked on one facing count once). `bbox` bounds the product's packs, `label.bbox` its
//   label, both in the final photo's pixels, mapped through the same homography as the pixels.
// - price is the regular single price the label prints; discountedPrice the price of one unit under
//   the label's offer: "2 for £3" -> 1.5, "3 for 2" -> two thirds of the price (rounded to the cent),
//   "WAS £2.00 NOW £1.50" (or "Reg. $3.99 SALE $2.99", "HALF PRICE") -> 1.5, a club/member/card price
//   -> that price; null without an offer. onSale is discountedPrice !== null.
// - label.text is everything printed on the label in reading order, on one line: offer header, brand
//   and name as printed (maybe capitals, maybe over several lines), size, prices, unit price, barcode
//   digits as printed under the bars, short code. A price printed with raised pence or cents ("£1²⁹")
//   is written plainly ("£1.29"); the text is the whole label even where something covers part of it.
// - Hidden labels: no label is ever fully hidden. Hands, stickers and shelf wobblers cover only the
//   side of a label away from its price (and never another label's price), so every product shown is
//   listed; a label partly covered has label.occluded = true.
// - shelfPosition from the row of the label, top to bottom: one row "eye-level"; otherwise first row
//   "top", last row "bottom" (with two rows the second is the last, so "bottom"), second row
//   "eye-level", any others "middle". A peg-hook row counts as a row.
// - shelfSection from the horizontal centre of the union of the product's bbox and label bbox:
//   < W/3 "left", < 2W/3 "center", else "right".
import type { ShelfTruth } from '../../eval/score.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { photograph, pickCamera, pickSize, view } from './camera.js';
import { buildCatalogue, type CatalogueEntry } from './catalogue.js';
import { mappedBox, type Point } from './geometry.js';
import type { Currency } from './money.js';
import { Rng } from './random.js';
import { buildScene } from './scene.js';

export interface GenerateOptions {
  out: string;
  count?: number;
  seed?: number;
  minWidth?: number;
  maxWidth?: number;
  /** Largest JPEG wanted, in KiB: quality drops (to 55 at the lowest) until the file fits. */
  maxKb?: number | null;
  log?: (line: string) => void;
}

type ShelfTruthProduct = ShelfTruth['products'][number];

export type ShelfPosition = 'top' | 'eye-level' | 'middle' | 'bottom';
export type ShelfSection = 'left' | 'center' | 'right';

/** One product of a photo's truth: what the evaluator scores (score.ts), and what a reader of the file wants besides. */
export interface PhotoProduct extends ShelfTruthProduct {
  brand: string;
  name: string;
  currency: Currency;
  shelfPosition: ShelfPosition;
  shelfSection: ShelfSection;
  bbox: number[];
  label: { bbox: number[]; text: string; occluded: boolean };
}

export interface PhotoTruth {
  image: string;
  width: number;
  height: number;
  products: PhotoProduct[];
  generator: 'third-generator';
  seed: number;
}

/** Row index (top first) of `rows` rows to its shelf position. */
export function shelfPosition(row: number, rows: number): ShelfPosition {
  if (rows === 1) return 'eye-level';
  if (row === 0) return 'top';
  if (row === rows - 1) return 'bottom';
  return row === 1 ? 'eye-level' : 'middle';
}

/** Horizontal centre in a photo `width` wide to its section. */
export function shelfSection(centreX: number, width: number): ShelfSection {
  return centreX < width / 3 ? 'left' : centreX < (2 * width) / 3 ? 'center' : 'right';
}

/**
 * Fewest photo pixels a centimetre of shelf should get: most photos show as many rows as fit at
 * 9-16 px/cm; three in ten are close-ups, as close as two rows allow (bigger labels, barcodes of
 * 1-3 px a module on large photos).
 */
function pixelsPerCm(rng: Rng): number {
  const r = rng.next();
  if (r < 0.1) return rng.float(40, 65);
  if (r < 0.3) return rng.float(20, 32);
  return rng.float(9, 16);
}

const CURRENCIES: readonly Currency[] = ['GBP', 'EUR', 'USD', 'JPY'];

export async function generate(opts: GenerateOptions): Promise<{ catalogue: CatalogueEntry[]; photos: PhotoTruth[] }> {
  const count = opts.count ?? 12;
  const seed = opts.seed ?? 3;
  const minW = opts.minWidth ?? 1280;
  const maxW = opts.maxWidth ?? 4032;
  const maxKb = opts.maxKb ?? null;
  if (!Number.isInteger(count) || count < 1) throw new Error('count must be a positive integer');
  if (!Number.isInteger(seed)) throw new Error('seed must be an integer');
  if (!(minW >= 320 && maxW >= minW)) throw new Error('need 320 <= min-width <= max-width');
  await mkdir(opts.out, { recursive: true });

  const root = new Rng(`third-generator/${seed}`);
  const cr = root.fork('currencies');
  const currencies = cr.shuffle(CURRENCIES).slice(0, cr.pick([2, 3]));
  const products = buildCatalogue(root.fork('catalogue'), currencies, root.fork('catalogue-size').int(72, 110));
  const catalogue = products.map((p) => p.entry);
  await writeFile(join(opts.out, 'catalogue.json'), JSON.stringify(catalogue, null, 2) + '\n');

  const photos: PhotoTruth[] = [];
  for (let i = 1; i <= count; i++) {
    const pr = root.fork(`photo-${i}`);
    const currency = currencies[(i - 1) % currencies.length];
    const { width, height } = pickSize(pr.fork('size'), minW, maxW);
    const cam = pickCamera(pr.fork('camera'), width);
    const sceneW = Math.ceil(width * 1.16);
    const sceneH = Math.ceil(height * 1.16);
    const v = view(cam, width, height, sceneW, sceneH);
    const scene = buildScene({
      rng: pr.fork('scene'),
      width: sceneW,
      height: sceneH,
      safe: v.safe,
      photoScale: v.scale,
      pool: products.filter((p) => p.entry.currency === currency),
      currency,
      minPpc: pixelsPerCm(pr) / v.scale,
    });
    const raw = await sharp(Buffer.from(scene.svg), { limitInputPixels: false })
      .flatten({ background: '#ffffff' })
      .raw()
      .toBuffer();
    const { jpeg, quality } = await photograph(raw, sceneW, sceneH, width, height, v, cam, pr.fork('noise'), maxKb);
    const name = `shelf-${String(i).padStart(2, '0')}`;

    const out: PhotoProduct[] = scene.items.map((it) => {
      const packPoints: Point[] = it.packs.flatMap((r) => [
        [r.x, r.y],
        [r.x + r.w, r.y],
        [r.x + r.w, r.y + r.h],
        [r.x, r.y + r.h],
      ]);
      const bbox = mappedBox(v.matrix, packPoints, width, height);
      const labelBox = mappedBox(v.matrix, it.label, width, height);
      const centre = (Math.min(bbox[0], labelBox[0]) + Math.max(bbox[2], labelBox[2])) / 2;
      const e = it.product.entry;
      return {
        sku: e.sku,
        upc: e.upc,
        brand: e.brand,
        name: e.name,
        units: it.units,
        price: it.price,
        discountedPrice: it.discountedPrice,
        onSale: it.discountedPrice !== null,
        currency: e.currency,
        shelfPosition: shelfPosition(it.row, scene.rows),
        shelfSection: shelfSection(centre, width),
        bbox,
        label: { bbox: labelBox, text: it.labelText, occluded: it.occluded },
      };
    });
    const truth: PhotoTruth = {
      image: `${name}.jpg`,
      width,
      height,
      products: out,
      generator: 'third-generator',
      seed,
    };
    await writeFile(join(opts.out, `${name}.jpg`), jpeg);
    await writeFile(join(opts.out, `${name}.json`), JSON.stringify(truth, null, 2) + '\n');
    photos.push(truth);
    opts.log?.(
      `${name}.jpg ${width}x${height} ${currency} ${scene.style.family} rows=${scene.rows} products=${out.length} q=${quality} ${Math.round(jpeg.length / 1024)}KiB`,
    );
  }
  return { catalogue, photos };
}
