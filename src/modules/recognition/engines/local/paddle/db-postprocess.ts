import type { Box } from '../ocr-types.js';

/** A text line the detector found, in the source image's pixels, with the detector's mean probability over its pixels. */
export type TextBox = Box & { score: number };

export type DbOptions = {
  /** A pixel is text when the probability map is above this (PaddleOCR's det_db_thresh). */
  threshold: number;
  /** A region is kept when the map's mean over its pixels is at least this (det_db_box_thresh). */
  boxThreshold: number;
  /**
   * How far a box grows back out: the network is trained on text regions shrunk by
   * area * (1 - 0.4²) / perimeter, so a kernel is expanded by area * ratio / perimeter (det_db_unclip_ratio).
   */
  unclipRatio: number;
  /** At most this many regions, the largest first (max_candidates). */
  maxCandidates: number;
  /** Regions whose shorter side is under this many map pixels are noise (min_size). */
  minSize: number;
};

export const DB_DEFAULTS: DbOptions = {
  threshold: 0.3,
  boxThreshold: 0.6,
  unclipRatio: 1.5,
  maxCandidates: 1000,
  minSize: 3,
};

/**
 * DB (differentiable binarisation) post-processing, axis-aligned: threshold the probability map,
 * group text pixels into 8-connected regions (OpenCV's outer contours group the same pixels),
 * score each region by the map's mean over its pixels, expand ("unclip") it, and scale it to the
 * source image. PaddleOCR fits rotated rectangles; shelf photos are taken roughly upright and the
 * lines read here are short, so the upright box loses little and keeps crops cheap.
 *
 * `map` is the detector's output (height x width), `scaleX`/`scaleY` source pixels per map pixel.
 */
export function dbBoxes(
  map: Float32Array,
  width: number,
  height: number,
  scaleX: number,
  scaleY: number,
  sourceWidth: number,
  sourceHeight: number,
  options: Partial<DbOptions> = {},
): TextBox[] {
  const o = { ...DB_DEFAULTS, ...options };
  const regions = textRegions(map, width, height, o.threshold);
  // The largest regions first, as OpenCV's contour order is not meaningful and candidates are capped.
  regions.sort((a, b) => b.area - a.area);
  if (regions.length > o.maxCandidates) regions.length = o.maxCandidates;
  // Pixel centres, as OpenCV's contour points are: a one-pixel-wide region has width 0.
  const scored = regions.filter((r) => Math.min(r.x1 - r.x0, r.y1 - r.y0) >= o.minSize);
  const out: TextBox[] = [];
  for (const r of scored) {
    const w = r.x1 - r.x0;
    const h = r.y1 - r.y0;
    // The map's mean over the region's own pixels (PaddleOCR's score_mode "slow", the contour's
    // mask), not over its upright box: a long line photographed a few degrees off level fills
    // only half its upright box, and that box's mean fell under the threshold, so the name and
    // price lines of tilted labels were lost while short words on the same labels were kept (D353).
    const score = r.sum / r.area;
    if (score < o.boxThreshold) continue;
    // The unclip distance from the line's own thickness: a tilted line's upright box is taller
    // than the line (its pixels, spread along its length, give the thickness back).
    const long = Math.max(w, h);
    const thick = Math.min(Math.min(w, h), r.area / (long + 1));
    const d = (long * thick * o.unclipRatio) / (2 * (long + thick));
    if (thick + 2 * d < o.minSize + 2) continue;
    const x0 = Math.max(0, Math.min(sourceWidth, Math.round((r.x0 - d) * scaleX)));
    const x1 = Math.max(0, Math.min(sourceWidth, Math.round((r.x1 + d) * scaleX)));
    const y0 = Math.max(0, Math.min(sourceHeight, Math.round((r.y0 - d) * scaleY)));
    const y1 = Math.max(0, Math.min(sourceHeight, Math.round((r.y1 + d) * scaleY)));
    if (x1 - x0 < 1 || y1 - y0 < 1) continue;
    out.push({ x0, y0, x1, y1, score });
  }
  return sortReadingOrder(out);
}

/** A region's bounds, its pixel count and the map's sum over its pixels. */
type Region = { x0: number; y0: number; x1: number; y1: number; area: number; sum: number };

/**
 * 8-connected regions of map > threshold, two passes with union-find over an Int32Array of
 * labels: no recursion and no per-pixel objects, so a 1280 x 736 map takes a few milliseconds.
 */
export function textRegions(map: Float32Array, width: number, height: number, threshold: number): Region[] {
  const labels = new Int32Array(width * height);
  const parent: number[] = [0];
  const find = (a: number): number => {
    while (parent[a] !== a) {
      parent[a] = parent[parent[a]!]!;
      a = parent[a]!;
    }
    return a;
  };
  const union = (a: number, b: number): number => {
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) return ra;
    if (ra < rb) {
      parent[rb] = ra;
      return ra;
    }
    parent[ra] = rb;
    return rb;
  };
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const i = row + x;
      if (!(map[i]! > threshold)) continue;
      // Already-labelled neighbours: left, and the three above (0 where outside or background).
      const up = i - width;
      const left = x > 0 ? labels[i - 1]! : 0;
      const upLeft = y > 0 && x > 0 ? labels[up - 1]! : 0;
      const above = y > 0 ? labels[up]! : 0;
      const upRight = y > 0 && x < width - 1 ? labels[up + 1]! : 0;
      let label = left || upLeft || above || upRight;
      if (label !== 0) {
        if (upLeft !== 0 && upLeft !== label) label = union(label, upLeft);
        if (above !== 0 && above !== label) label = union(label, above);
        if (upRight !== 0 && upRight !== label) label = union(label, upRight);
      }
      if (label === 0) {
        label = parent.length;
        parent.push(label);
      }
      labels[i] = label;
    }
  }
  const byRoot = new Map<number, Region>();
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const l = labels[row + x]!;
      if (l === 0) continue;
      const root = find(l);
      const r = byRoot.get(root);
      const p = map[row + x]!;
      if (!r) byRoot.set(root, { x0: x, y0: y, x1: x, y1: y, area: 1, sum: p });
      else {
        r.sum += p;
        if (x < r.x0) r.x0 = x;
        if (x > r.x1) r.x1 = x;
        if (y > r.y1) r.y1 = y;
        r.area++;
      }
    }
  }
  return [...byRoot.values()];
}

/** Top to bottom, and left to right within a line (boxes whose tops are within 10 px), as PaddleOCR sorts. */
export function sortReadingOrder<T extends Box>(boxes: T[]): T[] {
  const sorted = [...boxes].sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  for (let i = 1; i < sorted.length; i++) {
    for (let j = i; j > 0; j--) {
      const a = sorted[j - 1]!;
      const b = sorted[j]!;
      if (Math.abs(b.y0 - a.y0) < 10 && b.x0 < a.x0) {
        sorted[j - 1] = b;
        sorted[j] = a;
      } else break;
    }
  }
  return sorted;
}
