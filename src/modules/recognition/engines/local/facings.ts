import { cx, cy, h, overlapX } from './boxes.js';
import type { Box } from './ocr-pool.js';
import { shrink, type Photo } from './photo.js';

const SHRINK = 2;

/**
 * The photo at half size (enough for packs), and which of its pixels belong to packs rather than
 * the back wall: coloured, or dark.
 */
export type PackMask = { mask: Uint8Array; rgb: Buffer; width: number; height: number; fx: number; fy: number };

export async function packMask(photo: Photo): Promise<PackMask> {
  const { rgb, width, height, fx, fy } = await shrink(photo, SHRINK);
  const mask = new Uint8Array(width * height);
  for (let i = 0, p = 0; i < mask.length; i++, p += 3) {
    const hi = Math.max(rgb[p]!, rgb[p + 1]!, rgb[p + 2]!);
    const lo = Math.min(rgb[p]!, rgb[p + 1]!, rgb[p + 2]!);
    mask[i] = hi < 100 || (hi - lo) / Math.max(1, hi) > 0.3 ? 1 : 0;
  }
  return { mask, rgb, width, height, fx, fy };
}

/**
 * Where a label stands in its row: the next label's left edge, the neighbours' middles, and the
 * bottom of the nearest label above it, on the shelf over its packs, if one was found (photo pixels).
 */
export type RowPlace = { rightLimit: number; leftMiddle: number; rightMiddle: number; above: number | null };

/** The bottom of the nearest labels above `label` that share its columns: the shelf its packs stand under. */
export function shelfAbove(label: Box, labels: readonly Box[]): number | null {
  const above = labels.filter((b) => b !== label && b.y1 <= label.y0 && overlapX(b, label) > 0).map((b) => b.y1);
  return above.length ? Math.max(...above) : null;
}

/** A label's place among the photo's labels (`width` pixels wide): its row's neighbours and the shelf above. */
export function placeInRow(label: Box, labels: readonly Box[], width: number): RowPlace {
  const row = labels.filter((b) => b !== label && Math.abs(cy(b) - cy(label)) < h(label) / 2);
  const [before, after] = [row.filter((b) => b.x0 < label.x0), row.filter((b) => b.x0 > label.x0)];
  return {
    rightLimit: Math.min(width, ...after.map((b) => b.x0)),
    leftMiddle: Math.max(0, ...before.map(cx)),
    rightMiddle: Math.min(width, ...after.map(cx)),
    above: shelfAbove(label, labels),
  };
}

type Counted = { units: number; extent: Box | null };

/**
 * Facings of the product a label names. Two ways, each where it holds:
 * - separate packs: runs of pack-coloured columns in the band above the label, from the label's left
 *   edge to the next label (the first generator's shelves: packs a few pixels apart, labels under
 *   their packs' left end). Taken where they are clear: one run no wider than a pack can be, or
 *   several of about one width.
 * - repeated packs: a shelf's facings are the same pack again and again, so the window of the band
 *   under the label's middle that repeats a pack's width on is one facing, and the facings are the
 *   windows either side that look like it, up to the neighbouring labels' middles. This holds where
 *   packs touch, are white or pale like the wall, or stand centred over their label (the second
 *   generator's shelves, where the runs counted 0.26-0.31 of the facings right).
 */
export function countPacks(packs: PackMask, label: Box, row: RowPlace): Counted {
  // Where the packs reach, found once for both ways of counting (bandTop).
  const top = packsTop(packs, label, row.above);
  const runs = colourRuns(packs, label, row, top);
  const byRuns: Counted = { units: runs.units, extent: runs.extent };
  const lh = label.y1 - label.y0;
  if (runs.widths.length === 1 && runs.widths[0]! * packs.fx <= 1.3 * lh) return byRuns;
  if (runs.widths.length >= 2) {
    const mean = runs.widths.reduce((a, b) => a + b, 0) / runs.widths.length;
    const sd = Math.sqrt(runs.widths.reduce((a, b) => a + (b - mean) ** 2, 0) / runs.widths.length);
    if (sd / mean < 0.15) return byRuns;
  }
  return repeatedPacks(packs, label, row, top) ?? byRuns;
}

/**
 * The top of the band the packs over a label are looked for in (half-size y), the band ending at
 * `y1`: a little below the packs' `top` (packsTop) where the mask shows it, else a label height and a third
 * above the label. Packs stand 0.7 to 3 label heights tall: a band of fixed height over a tall
 * label (an offer's) looked at the wall above short packs, and under tall ones at their feet alone
 * (on the truth's label boxes of two tuning seeds, the packs' true tops made 0.62 of the facings
 * right 0.70, D361).
 */
function bandTop(packs: PackMask, label: Box, top: number | null, y1: number): number {
  const lh = label.y1 - label.y0;
  const fixed = Math.max(0, Math.round((label.y0 - 1.3 * lh) / packs.fy));
  if (top === null) return fixed;
  // Clear of the packs' own tops (caps, rounded shoulders), at most a label height above the fixed
  // band, and at least half a label height above the label: packs are seldom shorter than 0.7 label
  // heights, and a top found lower is the coloured foot of pale packs (a band 16 px high counted 3 of 4).
  const highest = Math.max(0, fixed - Math.round(lh / packs.fy));
  const lowest = Math.round((label.y0 - 0.5 * lh) / packs.fy);
  return Math.max(highest, Math.min(y1 - 3, lowest, top + Math.round(0.1 * (y1 - top))));
}

/** Of a row's pixels over the label, at least this share pack-coloured is a row through packs. */
const PACK_ROW = 0.35;

/**
 * Where the packs over a label reach up to (half-size y): the highest row over the label's width
 * that is mostly pack-coloured, reached from just above the label without passing 0.6 label
 * heights of rows that are not (a pack's pale band, the gaps between packs); never into the label
 * above's shelf. Null where no such row is found (white packs on a pale wall) or where no such gap is.
 */
function packsTop(packs: PackMask, label: Box, above: number | null): number | null {
  const { fx, fy, width, mask } = packs;
  const lh = label.y1 - label.y0;
  const xa = Math.max(0, Math.round(label.x0 / fx));
  const xb = Math.min(width, Math.round(label.x1 / fx));
  if (xb - xa < 2) return null;
  const start = Math.min(packs.height - 1, Math.round((label.y0 - 0.1 * lh) / fy));
  const stop = Math.max(0, Math.round(((above ?? label.y0 - 3.5 * lh) + 0.1 * lh) / fy));
  const gap = Math.max(2, Math.round((0.6 * lh) / fy));
  let top: number | null = null;
  let low = 0;
  for (let y = start; y >= stop && low < gap; y--) {
    let on = 0;
    for (let x = xa, i = y * width + xa; x < xb; x++, i++) on += mask[i]!;
    if (on >= PACK_ROW * (xb - xa)) [top, low] = [y, 0];
    else low++;
  }
  // Rows like packs all the way to the shelf above: a dark wall, which the mask takes for packs, or
  // packs filling the shelf's height. Either way their top is not seen (on the committed sample's
  // dark-walled shelf-04, taken as the top, the band looked at the wall: 5 facings of 6 right became 3).
  return low < gap ? null : top;
}

/**
 * The colour runs' count and widths (half-size pixels): the runs from the label's left edge to the
 * next label, and before them the runs of the same width, spacing and colour back to the previous
 * label's middle. Packs stand over their label's left end on some shelves and centred over it on
 * others: counted from the label's edge only, a label centred under six packs counted the three
 * right of its edge (D360).
 */
function colourRuns(packs: PackMask, label: Box, row: RowPlace, top: number | null): Counted & { widths: number[] } {
  const lh = label.y1 - label.y0;
  const { fx, fy } = packs;
  // The band starts a third of a label height above the label, clear of the shelf edge, and reaches
  // up to the packs' tops (bandTop).
  const y1 = Math.max(0, Math.round((label.y0 - 0.3 * lh) / fy));
  const y0 = bandTop(packs, label, top, y1);
  const edge = Math.max(0, Math.round(label.x0 / fx));
  const x0 = Math.min(edge, Math.max(0, Math.round(row.leftMiddle / fx)));
  const x1 = Math.min(packs.width, Math.round(row.rightLimit / fx));
  if (y1 - y0 < 3 || x1 - edge < 3) return { units: 1, extent: null, widths: [] };
  const minRun = Math.max(4, Math.round((lh * 0.25) / fx));
  const runs: Span[] = [];
  let run = 0;
  const close = (x: number) => {
    if (run >= minRun) runs.push({ x0: x - run, x1: x });
    run = 0;
  };
  // A column is a pack's when most of it is pack-coloured; packs stand a few pixels apart.
  for (let x = x0; x < x1; x++) {
    let on = 0;
    for (let y = y0; y < y1; y++) on += packs.mask[y * packs.width + x]!;
    if (on > (y1 - y0) * 0.5) run++;
    else close(x);
  }
  close(x1);
  // The label's own: runs reaching a run's least width past its left edge.
  const own = runs.filter((r) => r.x1 - edge >= minRun);
  const before = runs.filter((r) => r.x1 - edge < minRun);
  if (own.length >= 2) {
    const mean = own.reduce((s, r) => s + r.x1 - r.x0, 0) / own.length;
    const widest = Math.max(2, ...own.slice(1).map((r, i) => r.x0 - own[i]!.x1));
    for (let k = before.length - 1; k >= 0; k--) {
      const r = before[k]!;
      const sameWidth = Math.abs(r.x1 - r.x0 - mean) <= 0.15 * mean;
      const sameSpacing = own[0]!.x0 - r.x1 <= 1.5 * widest + 2;
      if (!sameWidth || !sameSpacing || colourGap(packs, y0, y1, r, own[0]!) > SAME_COLOUR) break;
      own.unshift(r);
    }
  }
  const units = own.length;
  return {
    units: Math.max(1, units),
    extent: units ? { x0: own[0]!.x0 * fx, y0: y0 * fy, x1: own[units - 1]!.x1 * fx, y1: y1 * fy } : null,
    widths: own.map((r) => r.x1 - r.x0),
  };
}

/** Below this variance a window is bare wall and looks like nothing. */
const FLAT = 25;
/** Windows at least this alike (normalised cross-correlation of their RGB) show the same pack. */
const ALIKE = 0.5;
/** Every third row of the band is enough to tell packs apart (the same facings counted right within 1 %), at a third of the cost. */
const ROW_STEP = 3;
/** The lags tried as a pack's width: the profile's strongest repeats. */
const PEAKS = 3;
/**
 * Two windows farther apart than this in mean colour (0-255, the channel that differs most) show
 * different things, however alike their patterns: a dotted pegboard wall or a neighbour's pack of
 * another colour beside the facings (D359).
 */
const SAME_COLOUR = 18;

/** How alike two windows of the band are, `w` columns from x `a` and from x `b`. */
function alike(packs: PackMask, y0: number, y1: number, a: number, b: number, w: number): number {
  const { rgb, width } = packs;
  let sa = 0,
    sb = 0;
  for (let y = y0; y < y1; y += ROW_STEP)
    for (let i = (y * width + a) * 3, j = (y * width + b) * 3, e = i + w * 3; i < e; i++, j++) {
      sa += rgb[i]!;
      sb += rgb[j]!;
    }
  const n = Math.ceil((y1 - y0) / ROW_STEP) * w * 3;
  const ma = sa / n,
    mb = sb / n;
  let ab = 0,
    aa = 0,
    bb = 0;
  for (let y = y0; y < y1; y += ROW_STEP)
    for (let i = (y * width + a) * 3, j = (y * width + b) * 3, e = i + w * 3; i < e; i++, j++) {
      const da = rgb[i]! - ma,
        db = rgb[j]! - mb;
      ab += da * db;
      aa += da * da;
      bb += db * db;
    }
  if (aa / n < FLAT || bb / n < FLAT) return 0;
  return ab / Math.sqrt(aa * bb);
}

/** A stretch of the band's columns (half-size pixels): a colour run, or a window `w` wide from x. */
type Span = { x0: number; x1: number };
const span = (x: number, w: number): Span => ({ x0: x, x1: x + w });

/** How far apart two spans' mean colours are: the largest difference of a channel's mean (0-255). */
function colourGap(packs: PackMask, y0: number, y1: number, a: Span, b: Span): number {
  const mean = (r: Span) => {
    const sum = [0, 0, 0];
    for (let y = y0; y < y1; y += ROW_STEP)
      for (let i = (y * packs.width + r.x0) * 3, e = (y * packs.width + r.x1) * 3; i < e; i += 3)
        for (let c = 0; c < 3; c++) sum[c]! += packs.rgb[i + c]!;
    const n = Math.ceil((y1 - y0) / ROW_STEP) * (r.x1 - r.x0);
    return sum.map((v) => v / n);
  };
  const [ma, mb] = [mean(a), mean(b)];
  return Math.max(...ma.map((v, c) => Math.abs(v - mb[c]!)));
}

/**
 * The widest pack whose repeat is looked for, in label heights, and how far either side of the label
 * the band's profile reaches. The first two generators' packs are about a label height wide; the
 * third's are 2.5–2.8 at the median. At two and one (before D400) such a pack's own print was taken
 * for the period: seed 5's Butter Shortbread, 3 facings, counted 34.
 */
const WIDEST_PACK = 3;
const PROFILE_REACH = 2;

/** Facings as windows like the one under the label's middle (see countPacks); null where no pack repeats. */
function repeatedPacks(packs: PackMask, label: Box, row: RowPlace, top: number | null): Counted | null {
  const { width, fx, fy } = packs;
  const lh = label.y1 - label.y0;
  // From the packs' tops (bandTop) down to near the label's top: packs stand on the shelf edge it is on.
  const y1 = Math.max(0, Math.round((label.y0 - 0.15 * lh) / fy));
  const y0 = bandTop(packs, label, top, y1);
  const lo = Math.max(0, Math.round(row.leftMiddle / fx));
  const hi = Math.min(width, Math.round(row.rightMiddle / fx));
  const middle = Math.round((label.x0 + label.x1) / 2 / fx);
  // The pack's width: lags where the band's column profile (mean RGB a column) repeats, around the label.
  const a0 = Math.max(lo, Math.round((label.x0 - PROFILE_REACH * lh) / fx));
  const n = Math.min(hi, Math.round((label.x1 + PROFILE_REACH * lh) / fx)) - a0;
  if (y1 - y0 < 3 || n < 8) return null;
  const profile = new Float64Array(n * 3);
  for (let y = y0; y < y1; y++)
    for (let x = 0, i = (y * width + a0) * 3; x < n * 3; x++, i++) profile[x] += packs.rgb[i]!;
  for (let c = 0; c < 3; c++) {
    let mean = 0;
    for (let x = c; x < n * 3; x += 3) mean += profile[x]! / n;
    for (let x = c; x < n * 3; x += 3) profile[x] -= mean;
  }
  const minLag = Math.max(3, Math.round((0.15 * lh) / fx));
  const maxLag = Math.min(Math.floor(n / 2), Math.round((WIDEST_PACK * lh) / fx));
  // A wider pack is preferred a little (below), by as much as before up to two label heights and no
  // more past them: scaled to the wider range, the preference halved and the second generator's
  // narrow packs lost their count to their own print.
  const preferredUpTo = Math.min(maxLag, Math.round((2 * lh) / fx));
  const preferWide = (lag: number) => 0.05 * Math.min(1, lag / preferredUpTo);
  const energy = profile.reduce((s, v) => s + v * v, 0) || 1;
  const repeat = new Float64Array(maxLag + 2);
  let strongest = -1;
  for (let lag = minLag; lag <= maxLag; lag++) {
    let s = 0;
    for (let i = 0; i < (n - lag) * 3; i++) s += profile[i]! * profile[i + lag * 3]!;
    repeat[lag] = (s / energy) * (n / (n - lag));
    strongest = Math.max(strongest, repeat[lag]!);
  }
  if (strongest < 0.2) return null;
  // Each peak tried as the pack's width, from where under the label a window best repeats it either
  // side; a wider pack is preferred a little (a pack's own print can repeat inside it).
  // A peak counts beside the strongest repeat past the profile's central lobe (the falling slope from
  // the shortest lag, where a column is merely like its neighbour): measured against the lobe's top
  // instead, a shelf of white packs with a thin band of print (repeating at 0.13 beside a lobe at
  // 0.46) had no peak at all and came out one facing (D357).
  let lobe = minLag;
  while (lobe < maxLag && repeat[lobe + 1]! < repeat[lobe]!) lobe++;
  let repeating = 0;
  for (let lag = lobe; lag <= maxLag; lag++) repeating = Math.max(repeating, repeat[lag]!);
  const peaks: number[] = [];
  for (let lag = minLag + 1; lag < maxLag; lag++)
    if (repeat[lag]! >= repeat[lag - 1]! && repeat[lag]! >= repeat[lag + 1]! && repeat[lag]! > 0.3 * repeating)
      peaks.push(lag);
  let period = 0,
    start = middle,
    best = -Infinity;
  for (const lag of peaks.sort((p, q) => repeat[q]! - repeat[p]!).slice(0, PEAKS)) {
    const step = Math.max(1, Math.round(lag / 12));
    for (let a = middle - lag; a <= middle; a += step) {
      if (a - lag < 0 || a + 2 * lag > width) continue;
      const score =
        Math.max(alike(packs, y0, y1, a, a + lag, lag), alike(packs, y0, y1, a, a - lag, lag)) + preferWide(lag);
      if (score > best) [best, start, period] = [score, a, lag];
    }
  }
  if (!period) return null;
  if (best - preferWide(period) < ALIKE) return { units: 1, extent: null };
  // Windows like it either side, each found within an eighth of a pack of where the last one ends,
  // and not past a neighbouring label's middle: that label's packs stand there. Like the first window
  // or like the last one found: light and the camera's angle change a pack's look along the shelf
  // (on the tuning seeds half the facings missed were a count stopped short, D352).
  const give = Math.max(1, Math.round(period / 8));
  const walk = (dir: 1 | -1) => {
    let count = 0,
      at = start;
    for (;;) {
      let score = -1,
        next = 0;
      for (let d = -give; d <= give; d++) {
        const b = at + dir * period + d;
        if (b < 0 || b + period > width || (dir > 0 ? b + period / 2 > hi : b + period / 2 < lo)) continue;
        // Of the same colour as the first window or the last one counted (light drifts along a shelf),
        // and of the same pattern as either (D352): the pattern alone followed the dots of a pegboard
        // wall, each window of which is like the last, to the photo's edge (D359).
        const sameColour =
          colourGap(packs, y0, y1, span(start, period), span(b, period)) <= SAME_COLOUR ||
          (at !== start && colourGap(packs, y0, y1, span(at, period), span(b, period)) <= SAME_COLOUR);
        if (!sameColour) continue;
        const s = Math.max(
          alike(packs, y0, y1, start, b, period),
          at === start ? -1 : alike(packs, y0, y1, at, b, period),
        );
        if (s > score) [score, next] = [s, b];
      }
      if (score < ALIKE) return { count, at };
      count++;
      at = next;
    }
  };
  const right = walk(1),
    left = walk(-1);
  return {
    units: 1 + right.count + left.count,
    extent: { x0: left.at * fx, y0: y0 * fy, x1: (right.at + period) * fx, y1: y1 * fy },
  };
}
