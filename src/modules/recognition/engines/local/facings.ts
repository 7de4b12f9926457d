import type { Box } from './ocr-pool.js';
import { shrink, type Photo } from './photo.js';

const SHRINK = 2;

/** Pixels that belong to packs rather than the back wall: coloured, or dark. Half size is enough. */
export type PackMask = { mask: Uint8Array; width: number; height: number; fx: number; fy: number };

export async function packMask(photo: Photo): Promise<PackMask> {
  const { rgb, width, height, fx, fy } = await shrink(photo, SHRINK);
  const mask = new Uint8Array(width * height);
  for (let i = 0, p = 0; i < mask.length; i++, p += 3) {
    const hi = Math.max(rgb[p]!, rgb[p + 1]!, rgb[p + 2]!);
    const lo = Math.min(rgb[p]!, rgb[p + 1]!, rgb[p + 2]!);
    mask[i] = hi < 100 || (hi - lo) / Math.max(1, hi) > 0.3 ? 1 : 0;
  }
  return { mask, width, height, fx, fy };
}

/**
 * Facings of the product a label names: the separate packs standing in the band above the label,
 * from the label's left edge to the next label of the row. The band starts half a label height
 * above the label, clear of the shelf edge, and is a label high. Packs stand a few pixels apart,
 * so a column is a pack's when most of it is pack-coloured, and each run of such columns one pack.
 */
export function countPacks(packs: PackMask, label: Box, rightLimit: number): { units: number; extent: Box | null } {
  const lh = label.y1 - label.y0;
  const { fx, fy } = packs;
  const y0 = Math.max(0, Math.round((label.y0 - 1.3 * lh) / fy));
  const y1 = Math.max(0, Math.round((label.y0 - 0.45 * lh) / fy));
  const x0 = Math.max(0, Math.round(label.x0 / fx));
  const x1 = Math.min(packs.width, Math.round(rightLimit / fx));
  if (y1 - y0 < 3 || x1 - x0 < 3) return { units: 1, extent: null };
  const minRun = Math.max(4, Math.round((lh * 0.25) / fx));
  let units = 0,
    run = 0,
    first = -1,
    last = -1;
  const close = (x: number) => {
    if (run >= minRun) {
      units++;
      if (first < 0) first = x - run;
      last = x;
    }
    run = 0;
  };
  for (let x = x0; x < x1; x++) {
    let on = 0;
    for (let y = y0; y < y1; y++) on += packs.mask[y * packs.width + x]!;
    if (on > (y1 - y0) * 0.5) run++;
    else close(x);
  }
  close(x1);
  return {
    units: Math.max(1, units),
    extent: units ? { x0: first * fx, y0: y0 * fy, x1: last * fx, y1: y1 * fy } : null,
  };
}
