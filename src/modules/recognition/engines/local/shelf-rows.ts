import type { RecognizedProduct } from '../../recognizer.js';
import { cy, h } from './boxes.js';
import type { Box } from './ocr-pool.js';

type ShelfPosition = RecognizedProduct['shelfPosition'];

/**
 * Rows of labels (shelf edges), top to bottom, mapped to the spec's shelf positions. `followers` make
 * no row of their own: each joins the first row whose middle is not above its own middle (less half
 * its height), the shelf edge under it; one below every row starts a row of its own.
 */
export function shelfRows<T>(items: T[], boxOf: (item: T) => Box, followers: T[] = []): Map<T, ShelfPosition> {
  const sorted = [...items].sort((a, b) => cy(boxOf(a)) - cy(boxOf(b)));
  const groups: T[][] = [];
  for (const item of sorted) {
    const last = groups.at(-1);
    const [box, before] = [boxOf(item), last ? boxOf(last.at(-1)!) : null];
    // Same row: centres closer than half the taller label (labels of one shelf edge align).
    if (last && before && cy(box) - cy(before) < Math.max(h(box), h(before)) / 2) last.push(item);
    else groups.push([item]);
  }
  const middles = groups.map((g) => g.reduce((sum, item) => sum + cy(boxOf(item)), 0) / g.length);
  for (const item of followers) {
    const box = boxOf(item);
    const under = middles.findIndex((m) => m >= cy(box) - h(box) / 2);
    if (under >= 0) groups[under]!.push(item);
    else groups.push([item]);
  }
  const names = (n: number, i: number): ShelfPosition => {
    if (n === 1) return 'eye-level';
    if (i === 0) return 'top';
    if (i === n - 1) return 'bottom';
    return i === 1 ? 'eye-level' : 'middle';
  };
  const out = new Map<T, ShelfPosition>();
  groups.forEach((g, i) => g.forEach((item) => out.set(item, names(groups.length, i))));
  return out;
}

/**
 * The shelf rows of a photo's products, each seen on the box it was read from (its label, or the
 * print that named it). A price is printed only on a shelf edge's label, so the rows are those of
 * the priced products; an unpriced one (a pack's print, read above its label) takes the row of the
 * shelf edge under it (D390). Such print made rows of its own before, and every product below it was
 * placed a shelf too low. With no price read anywhere, every box makes rows as before.
 */
export function productRows(products: RecognizedProduct[], boxOf: (p: RecognizedProduct) => Box) {
  const priced = products.filter((p) => p.price !== null);
  if (priced.length === 0) return shelfRows(products, boxOf);
  return shelfRows(
    priced,
    boxOf,
    products.filter((p) => p.price === null),
  );
}
