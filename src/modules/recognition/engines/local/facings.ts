import sharp from 'sharp';
import type { Box } from './ocr-pool.js';

const SHRINK = 2;

/** Pixels that belong to packs rather than the back wall: coloured, or dark. Half size is enough. */
export type PackMask = { mask: Uint8Array; width: number; height: number };

export async function packMask(image: Buffer): Promise<PackMask> {
  const { width = 0, height = 0, orientation = 1 } = await sharp(image).metadata();
  const uprightWidth = orientation >= 5 ? height : width;
  const { data, info } = await sharp(image).rotate().resize(Math.max(1, Math.round(uprightWidth / SHRINK))).toColourspace('srgb').removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const mask = new Uint8Array(info.width * info.height);
  for (let i = 0, p = 0; i < mask.length; i++, p += info.channels) {
    const hi = Math.max(data[p]!, data[p + 1]!, data[p + 2]!);
    const lo = Math.min(data[p]!, data[p + 1]!, data[p + 2]!);
    mask[i] = hi < 100 || (hi - lo) / Math.max(1, hi) > 0.3 ? 1 : 0;
  }
  return { mask, width: info.width, height: info.height };
}

/**
 * Facings of the product a label names: the separate packs standing in the band above the label,
 * from the label's left edge to the next label of the row. The band starts half a label height
 * above the label, clear of the shelf edge, and is a label high. Packs stand a few pixels apart,
 * so a column is a pack's when most of it is pack-coloured, and each run of such columns one pack.
 */
export function countPacks(packs: PackMask, label: Box, rightLimit: number): { units: number; extent: Box | null } {
  const lh = label.y1 - label.y0;
  const y0 = Math.max(0, Math.round((label.y0 - 1.3 * lh) / SHRINK));
  const y1 = Math.max(0, Math.round((label.y0 - 0.45 * lh) / SHRINK));
  const x0 = Math.max(0, Math.round(label.x0 / SHRINK));
  const x1 = Math.min(packs.width, Math.round(rightLimit / SHRINK));
  if (y1 - y0 < 3 || x1 - x0 < 3) return { units: 1, extent: null };
  const minRun = Math.max(4, Math.round(lh * 0.25 / SHRINK));
  let units = 0, run = 0, first = -1, last = -1;
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
  return { units: Math.max(1, units), extent: units ? { x0: first * SHRINK, y0: y0 * SHRINK, x1: last * SHRINK, y1: y1 * SHRINK } : null };
}
