import { centreInside, cy, h, overlapX, union, w } from './boxes.js';
import type { Box } from './ocr-types.js';
import type { PaddleOcr } from './paddle/paddle-ocr.js';
import type { Photo } from './photo.js';

/**
 * The longest side the text detector sees. Label print is the photo's smallest text that matters,
 * and at 960 px a 1600–2400 px photo's label names are still 8 px or more, which the detector finds;
 * its time grows with the area (~0.2 s at 960 on one core, ~0.35 s at 1280).
 */
const DETECT_SIDE = 960;

/**
 * Stretches of a row of labels where a label could stand but none was found: between two labels of
 * the row, or between a label and the photo's edge, wider than one and a half of the row's labels.
 * A shelf edge is lined with labels; a hole in the line is a label some finder missed (a dark one
 * whose symbol is too blurred to see) or bare shelf, and the text detector tells which.
 */
function rowGaps(labels: Box[], width: number): Box[] {
  const rows: Box[][] = [];
  for (const l of [...labels].sort((a, b) => cy(a) - cy(b))) {
    const row = rows.at(-1);
    if (row && Math.abs(cy(l) - cy(row.at(-1)!)) < h(l) / 2) row.push(l);
    else rows.push([l]);
  }
  const gaps: Box[] = [];
  for (const row of rows) {
    const widths = row.map(w).sort((a, b) => a - b);
    const wide = 1.5 * widths[Math.floor(widths.length / 2)]!;
    const y0 = Math.min(...row.map((l) => l.y0));
    const y1 = Math.max(...row.map((l) => l.y1));
    let x = 0;
    for (const l of [...row].sort((a, b) => a.x0 - b.x0)) {
      if (l.x0 - x > wide) gaps.push({ x0: x, y0, x1: l.x0, y1 });
      x = Math.max(x, l.x1);
    }
    if (width - x > wide) gaps.push({ x0: x, y0, x1: width, y1 });
  }
  return gaps;
}

/**
 * Print repeated beside itself: another group of lines as tall, level with it, less than half its
 * width away. That is a pack's print seen on its neighbouring facings; a shelf's labels stand a
 * product's facings apart. Print that is not repeated may be a label in a row where no finder saw
 * one (cream labels on a cream shelf, red promotion labels: no paper, no row to have a gap in).
 */
function repeated(box: Box, groups: { box: Box }[]): boolean {
  return groups.some(
    ({ box: o }) =>
      o !== box &&
      Math.abs(h(o) - h(box)) < 0.25 * h(box) &&
      Math.abs(cy(o) - cy(box)) < 0.3 * h(box) &&
      Math.max(o.x0, box.x0) - Math.min(o.x1, box.x1) < 0.5 * Math.min(w(o), w(box)),
  );
}

/**
 * Labels found by their text rather than their paper: the learned text detector (PP-OCRv4) finds
 * lines of print whatever the label's colour (dark labels with light print, red or green paper, a
 * tag hanging in front of a pack), and lines stacked closely one above the other are one label.
 *
 * Paid for only where a label was missed. Nearly every shelf label carries a barcode, and bars are
 * cheap to find over the whole photo (the caller finds them, bar-regions.ts): bars outside every
 * known label, or a hole in a row of known labels (rowGaps), mean a label was missed, and only then
 * does the detector run (~0.2 s). Of the groups of lines it finds, only those in the band of such
 * bars or inside such a hole are kept: the rest is mostly pack print, which would cost a reading
 * each. With no known label at all, every group is kept.
 */
/** A label found by its print, with the lines of print the detector saw on it (photo pixels). */
export type TextLabel = Box & { lines: Box[] };

export async function findTextLabels(
  detector: PaddleOcr,
  photo: Photo,
  bars: Box[],
  known: Box[],
  side = DETECT_SIDE,
): Promise<TextLabel[]> {
  const missedBars = bars.filter((b) => !known.some((k) => centreInside(b, k, h(k) * 0.25)));
  const gaps = rowGaps(known, photo.width);
  if (known.length > 0 && missedBars.length === 0 && gaps.length === 0) return [];
  const lines = await detector.detect(
    { data: photo.rgb, width: photo.width, height: photo.height, channels: 3 },
    { maxSide: side },
  );
  const free = lines.filter((l) => h(l) >= 6 && !known.some((k) => centreInside(l, k, h(l) * 0.5)));
  // Union-find over the lines: two lines are one label when one sits just below the other and they
  // share a column (or start at the same left edge, as a label's name and price lines do).
  const parent = free.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  for (let i = 0; i < free.length; i++)
    for (let j = i + 1; j < free.length; j++) {
      const [a, b] = [free[i]!, free[j]!];
      const line = Math.max(h(a), h(b));
      const gap = Math.max(a.y0, b.y0) - Math.min(a.y1, b.y1);
      const column = overlapX(a, b) > 0.3 * Math.min(w(a), w(b)) || Math.abs(a.x0 - b.x0) < Math.min(h(a), h(b)) * 1.5;
      // Or the same line cut in two (a wide gap between words).
      const sameLine =
        Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 0.5 * Math.min(h(a), h(b)) &&
        Math.max(a.x0, b.x0) - Math.min(a.x1, b.x1) < Math.min(h(a), h(b)) * 1.2;
      if ((gap < line * 1.6 && column) || sameLine) parent[root(i)] = root(j);
    }
  const groups = new Map<number, Box[]>();
  free.forEach((l, i) => groups.set(root(i), [...(groups.get(root(i)) ?? []), l]));
  const labels: TextLabel[] = [];
  const grouped = [...groups.values()].map((members) => ({
    members,
    box: {
      x0: Math.min(...members.map((m) => m.x0)),
      y0: Math.min(...members.map((m) => m.y0)),
      x1: Math.max(...members.map((m) => m.x1)),
      y1: Math.max(...members.map((m) => m.y1)),
    },
  }));
  for (const { members, box: found } of grouped) {
    let box = found;
    // Labels sit on the shelf edge with their barcodes: print in the band of a missed label's bars
    // (from about three label lines above a symbol to just below it) is a label's; pack print
    // stands higher. With no bars at all (labels without symbols), every group is kept.
    const mid = cy(box);
    const inBarBand = missedBars.some((b) => mid > b.y0 - 4 * h(b) && mid < b.y1 + h(b));
    const inGap = gaps.some((g) => centreInside(box, g, 0));
    if ((missedBars.length > 0 || gaps.length > 0) && !inBarBand && !inGap && repeated(box, grouped)) continue;
    for (const b of missedBars)
      if (overlapX(b, box) > 0 || (b.x0 - box.x1 < h(box) && b.x0 > box.x0 && Math.abs(b.y1 - box.y1) < h(box)))
        if (b.y0 < box.y1 + h(b) && b.y1 > box.y0 - h(b)) box = union(box, b);
    // A label's margin around its print: the reader wants some background round the text. Above
    // it, a line's more: a label's name sits above its price in smaller print, which the detector
    // at this size may not have seen.
    const tallest = Math.max(...members.map(h));
    const pad = tallest * 0.35;
    labels.push({
      x0: Math.max(0, box.x0 - pad),
      y0: Math.max(0, box.y0 - pad - (members.length === 1 ? tallest : 0)),
      x1: Math.min(photo.width, box.x1 + pad),
      y1: Math.min(photo.height, box.y1 + pad),
      lines: members,
    });
  }
  return labels;
}
