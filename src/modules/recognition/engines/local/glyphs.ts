import type { Box } from './ocr-pool.js';

export type Component = Box & { area: number };

/**
 * Connected components of dark pixels in a binary image (0 = ink). Iterative flood fill with an
 * explicit stack: recursion would overflow on large blobs.
 */
export function darkComponents(pixels: Uint8Array, width: number, height: number, minArea = 12): Component[] {
  const seen = new Uint8Array(width * height);
  const stack = new Int32Array(width * height);
  const out: Component[] = [];
  for (let start = 0; start < pixels.length; start++) {
    if (seen[start] || pixels[start] !== 0) continue;
    let sp = 0;
    stack[sp++] = start;
    seen[start] = 1;
    let x0 = width,
      y0 = height,
      x1 = 0,
      y1 = 0,
      area = 0;
    while (sp > 0) {
      const p = stack[--sp]!;
      const x = p % width;
      const y = (p - x) / width;
      area++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      const neighbours = [
        x > 0 ? p - 1 : -1,
        x < width - 1 ? p + 1 : -1,
        y > 0 ? p - width : -1,
        y < height - 1 ? p + width : -1,
      ];
      for (const q of neighbours) {
        if (q >= 0 && !seen[q] && pixels[q] === 0) {
          seen[q] = 1;
          stack[sp++] = q;
        }
      }
    }
    if (area >= minArea) out.push({ x0, y0, x1: x1 + 1, y1: y1 + 1, area });
  }
  return out;
}

/**
 * The row of the tallest glyph-like components: on a price tag that is the price. Glyphs are
 * taller than wide-ish, not touching the crop's edge, and of similar height and baseline.
 */
export function tallestGlyphRow(components: Component[], width: number, height: number): Box | null {
  const glyphs = components.filter((c) => {
    const w = c.x1 - c.x0;
    const h = c.y1 - c.y0;
    const fill = c.area / (w * h);
    return (
      h >= height * 0.12 &&
      h <= height * 0.8 &&
      w <= h * 1.5 &&
      w >= 2 &&
      fill > 0.15 &&
      c.x0 > 0 &&
      c.y0 > 0 &&
      c.x1 < width &&
      c.y1 < height
    );
  });
  if (glyphs.length === 0) return null;
  glyphs.sort((a, b) => b.y1 - b.y0 - (a.y1 - a.y0));
  const anchor = glyphs[0]!;
  const ah = anchor.y1 - anchor.y0;
  const row = glyphs.filter((g) => {
    const h = g.y1 - g.y0;
    return h >= ah * 0.6 && Math.abs(g.y1 - anchor.y1) <= ah * 0.3;
  });
  // Keep the horizontally connected run around the anchor (gaps under one glyph height).
  row.sort((a, b) => a.x0 - b.x0);
  const i = row.indexOf(anchor);
  let lo = i,
    hi = i;
  while (lo > 0 && row[lo]!.x0 - row[lo - 1]!.x1 < ah) lo--;
  while (hi < row.length - 1 && row[hi + 1]!.x0 - row[hi]!.x1 < ah) hi++;
  const run = row.slice(lo, hi + 1);
  return {
    x0: Math.min(...run.map((g) => g.x0)),
    y0: Math.min(...run.map((g) => g.y0)),
    x1: Math.max(...run.map((g) => g.x1)),
    y1: Math.max(...run.map((g) => g.y1)),
  };
}
