import { darkComponents } from './glyphs.js';
import { centreInside } from './boxes.js';
import type { Box } from './ocr-pool.js';
import { shrink, toPhotoBox, type Photo } from './photo.js';

/** How much smaller the copy searched for labels is: a label is still dozens of pixels wide there. */
const SHRINK = 4;

/**
 * Shelf labels are bright paper (white, or yellow for promotions) rectangles on a darker shelf
 * edge. They are found on a quarter-size copy, where averaging has taken out the sensor noise:
 * bright pixels, grouped into connected regions, kept when their size and shape are a label's.
 */
export async function findLabelBoxes(photo: Photo): Promise<Box[]> {
  const { paper, onStrips } = await findPaper(photo);
  return [...paper, ...onStrips];
}

/**
 * findLabelBoxes' labels in two lists: `paper`, regions of paper colour; `onStrips`, white labels
 * inside a yellow shelf-edge strip, which is paper colour too (below). Those are labels by where they
 * are, as the shelf edges' are (shelf-edge-labels.ts), whatever their print reads as.
 */
export async function findPaper(photo: Photo): Promise<{ paper: Box[]; onStrips: Box[] }> {
  const { rgb: data, width: W, height: H, fx, fy } = await shrink(photo, SHRINK);
  const channels = 3;
  // "White" is relative to the photo's exposure: the level of its brightest 5 %, less 12 %. The
  // brightest 1 % (the first choice) is lamps and glossy packs in real store photos, and only 43
  // of the 144 real tags cleared it; at 5 % and 88 %, 119 do and the synthetic set is unchanged.
  const histogram = new Uint32Array(256);
  for (let p = 0; p < data.length; p += channels) histogram[Math.min(data[p]!, data[p + 1]!, data[p + 2]!)]!++;
  let paper = 255;
  for (let seen = 0; paper > 0 && (seen += histogram[paper]!) < W * H * 0.05;) paper--;
  // Paper pixels are 0: darkComponents groups the zeros of a mask into connected regions.
  const mask = new Uint8Array(W * H);
  // White alone, for labels on a yellow shelf edge (below).
  const whiteOnly = new Uint8Array(W * H);
  for (let i = 0, p = 0; i < W * H; i++, p += channels) {
    const r = data[p]!,
      g = data[p + 1]!,
      b = data[p + 2]!;
    const lo = Math.min(r, g, b),
      hi = Math.max(r, g, b);
    const white = lo > paper * 0.88 && hi - lo < 45;
    const yellow = r > paper * 0.78 && g > paper * 0.7 && b < paper * 0.6;
    mask[i] = white || yellow ? 0 : 1;
    whiteOnly[i] = white ? 0 : 1;
  }
  const limits = { minHeight: 0.025, minAspect: 0.6, minFill: 0.35 };
  const strips: Box[] = [];
  const boxes = regionBoxes(photo, { mask, width: W, height: H, fx, fy }, limits, strips);
  if (strips.length === 0) return { paper: boxes, onStrips: [] };
  // White labels on a yellow shelf edge (a discounter's strip) make one paper region with their edge,
  // too wide for a label: inside such a strip, the white alone is looked at for labels (D397).
  const onStrips = regionBoxes(photo, { mask: whiteOnly, width: W, height: H, fx, fy }, limits).filter(
    (b) => strips.some((s) => centreInside(b, s)) && !boxes.some((k) => centreInside(b, k) || centreInside(k, b)),
  );
  return { paper: boxes, onStrips };
}

/** A label region's size, shape and fill: heights and widths as shares of the copy searched. */
export type RegionLimits = { minHeight: number; minAspect: number; minFill: number };

/**
 * The connected regions of a quarter-size copy's mask (its zeros) kept as labels, in the photo's
 * pixels: at least 4 % of the copy across and at most half, no more than eight times as wide as tall,
 * and `limits` for the rest (each finder's own paper). Regions wider than that (half the copy across,
 * or more than eight times as wide as tall) go to `strips`, in the photo's pixels, where given.
 */
export function regionBoxes(
  photo: Pick<Photo, 'width' | 'height'>,
  copy: { mask: Uint8Array; width: number; height: number; fx: number; fy: number },
  limits: RegionLimits,
  strips?: Box[],
): Box[] {
  const { mask, width: W, height: H, fx, fy } = copy;
  const boxes: Box[] = [];
  for (const c of darkComponents(mask, W, H, 1)) {
    const bw = c.x1 - c.x0,
      bh = c.y1 - c.y0;
    const aspect = bw / bh;
    const wide = bw > W * 0.5 || aspect > 8;
    if (strips && wide && bh >= H * limits.minHeight) strips.push(toPhotoBox(c, { fx, fy }, photo));
    if (
      bw < W * 0.04 ||
      bh < H * limits.minHeight ||
      wide ||
      aspect < limits.minAspect ||
      c.area / (bw * bh) < limits.minFill
    )
      continue;
    boxes.push(toPhotoBox(c, { fx, fy }, photo));
  }
  return boxes;
}
