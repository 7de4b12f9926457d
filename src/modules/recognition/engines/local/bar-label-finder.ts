import type { Box } from './ocr-types.js';
import { shrink, type Photo } from './photo.js';

const SHRINK = 4;

/**
 * Labels found from their barcodes, whatever their paper's colour: a shelf label is a patch of one
 * colour carrying a symbol, so from just beside each symbol that no paper label holds, the patch's
 * own colour is followed outwards (a flood fill on a quarter-size copy, where print is thin and the
 * fill flows round it) and its extent is the label. Dark, red, green or cream labels the paper
 * finder does not see are found this way for a few milliseconds; a fill that runs away (the
 * symbol's surroundings are not a label: a pack, the shelf) is dropped. `reach`: how many times the
 * symbol's width and height a label may be.
 */
export async function labelsFromBars(
  photo: Photo,
  bars: Box[],
  reach: { width: number; height: number } = { width: 6, height: 7 },
): Promise<Box[]> {
  if (bars.length === 0) return [];
  const { rgb, width: W, height: H, fx, fy } = await shrink(photo, SHRINK);
  const seen = new Int32Array(W * H).fill(-1);
  const out: Box[] = [];
  bars.forEach((bar, n) => {
    const bh = (bar.y1 - bar.y0) / fy;
    const bw = (bar.x1 - bar.x0) / fx;
    const cy = Math.round((bar.y0 + bar.y1) / 2 / fy);
    let best: Box | null = null;
    // Seeds left of the symbol, then above it: beyond a white patch printed under the symbol.
    const seeds: [number, number][] = [
      [Math.round(bar.x0 / fx - bh * 0.6), cy],
      [Math.round(bar.x0 / fx - bh * 1.2), cy],
      [Math.round((bar.x0 + bar.x1) / 2 / fx), Math.round(bar.y0 / fy - bh * 0.6)],
    ];
    for (const [k, [sx, sy]] of seeds.entries()) {
      if (sx < 0 || sy < 0 || sx >= W || sy >= H) continue;
      // Each fill marks what it took with its own number, so no fill has to clear the others'.
      const box = fill(rgb, W, H, sx, sy, seen, n * seeds.length + k, {
        maxW: bw * reach.width,
        maxH: bh * reach.height,
      });
      if (!box) continue;
      // It must hold the symbol's middle (the patch the symbol is printed on) and be a label's shape.
      const mx = (bar.x0 + bar.x1) / 2 / fx;
      const holds = mx > box.x0 - bh && mx < box.x1 + bh && cy > box.y0 - bh && cy < box.y1 + bh;
      const bwid = box.x1 - box.x0,
        bhei = box.y1 - box.y0;
      if (!holds || bwid < bw * 1.2 || bhei < bh * 1.5 || bwid / bhei > 8 || bwid / bhei < 0.5) continue;
      if (!best || bwid * bhei > (best.x1 - best.x0) * (best.y1 - best.y0)) best = box;
    }
    if (!best) return;
    out.push({
      x0: Math.max(0, Math.floor(Math.min(best.x0 * fx, bar.x0))),
      y0: Math.max(0, Math.floor(Math.min(best.y0 * fy, bar.y0))),
      x1: Math.min(photo.width, Math.ceil(Math.max(best.x1 * fx, bar.x1))),
      y1: Math.min(photo.height, Math.ceil(Math.max(best.y1 * fy, bar.y1))),
    });
  });
  // Two symbols on one label give the same patch twice.
  return out.filter((b, i) => !out.some((o, j) => j < i && Math.abs(o.x0 - b.x0) < 8 && Math.abs(o.y0 - b.y0) < 8));
}

/** The bounding box of the pixels of the seed's colour connected to it, or null if it outgrows a label. */
function fill(
  rgb: Buffer,
  W: number,
  H: number,
  sx: number,
  sy: number,
  seen: Int32Array,
  mark: number,
  limit: { maxW: number; maxH: number },
): Box | null {
  const s = (sy * W + sx) * 3;
  const r0 = rgb[s]!,
    g0 = rgb[s + 1]!,
    b0 = rgb[s + 2]!;
  const stack = [sy * W + sx];
  let x0 = sx,
    x1 = sx,
    y0 = sy,
    y1 = sy,
    area = 0;
  seen[sy * W + sx] = mark;
  while (stack.length) {
    const i = stack.pop()!;
    const x = i % W,
      y = (i - x) / W;
    area++;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
    if (x1 - x0 > limit.maxW || y1 - y0 > limit.maxH) return null;
    for (const j of [i - 1, i + 1, i - W, i + W]) {
      if (j < 0 || j >= W * H || seen[j] === mark) continue;
      if ((j === i - 1 && x === 0) || (j === i + 1 && x === W - 1)) continue;
      const p = j * 3;
      if (Math.abs(rgb[p]! - r0) + Math.abs(rgb[p + 1]! - g0) + Math.abs(rgb[p + 2]! - b0) > 60) continue;
      seen[j] = mark;
      stack.push(j);
    }
  }
  // A speck (the seed landed on print): not a patch.
  if (area < 12) return null;
  return { x0, y0, x1: x1 + 1, y1: y1 + 1 };
}
