import { darkComponents } from './glyphs.js';
import type { Box } from './ocr-pool.js';

// Wide, short cells: wide enough to always span a bar edge, short enough to fit a symbol's height.
export const CELL_W = 16;
const CELL_H = 6;

/**
 * Where a barcode is in a grey image, whether or not it can be decoded: cells whose brightness
 * changes often from left to right and little from top to bottom (vertical bars), joined into
 * regions. Used to keep barcodes away from OCR (tesseract reads bars as a line of junk and spends
 * most of its time on it) and to give the decoder an enlarged view of just the symbol.
 * `minCells`: the narrowest region kept, in cells; the whole-photo pass that looks for labels by
 * their symbols takes 3 (a blurred symbol of under a pixel a module breaks into shorter runs).
 * `trimEdges`: a region that is no symbol as found is tried again without its thin edge rows and
 * columns (a label crop's dark border joined to its symbol).
 */
export function barRegions(
  grey: Uint8Array,
  width: number,
  height: number,
  {
    minGradient = 12,
    minCells = 4,
    trimEdges = false,
  }: { minGradient?: number; minCells?: number; trimEdges?: boolean } = {},
): Box[] {
  const cols = Math.floor(width / CELL_W);
  const rows = Math.floor(height / CELL_H);
  const bar = new Uint8Array(cols * rows);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let gx = 0,
        gy = 0;
      for (let y = r * CELL_H; y < (r + 1) * CELL_H - 1; y++) {
        for (let x = c * CELL_W; x < (c + 1) * CELL_W - 1; x++) {
          const p = y * width + x;
          gx += Math.abs(grey[p + 1]! - grey[p]!);
          gy += Math.abs(grey[p + width]! - grey[p]!);
        }
      }
      const n = (CELL_W - 1) * (CELL_H - 1);
      // Bar cells are 0: darkComponents groups the zeros of a mask into connected regions.
      bar[r * cols + c] = gx / n > minGradient && gx > gy * 4 ? 0 : 1;
    }
  }
  // Regions of bar cells; a symbol is many cells wide, several high, and mostly bars.
  const isSymbol = (c0: number, r0: number, c1: number, r1: number, area: number) =>
    c1 - c0 >= minCells &&
    r1 - r0 >= 3 &&
    area >= (c1 - c0) * (r1 - r0) * 0.6 &&
    sameAllTheWayDown(grey, width, c0 * CELL_W, c1 * CELL_W, r0 * CELL_H, r1 * CELL_H);
  const out: Box[] = [];
  for (const component of darkComponents(bar, cols, rows, 1)) {
    let { x0: c0, y0: r0, x1: c1, y1: r1 } = component;
    if (!isSymbol(c0, r0, c1, r1, component.area)) {
      if (!trimEdges) continue;
      // A label's dark edge (its border, or the shelf beside a crop) is one tall run of "bar" cells:
      // touching the symbol, it joins it into a region too sparse, or too tall for the two profiles
      // to match, and the symbol was left for tesseract to read as junk over the name beside it.
      // The region's thin rows and columns are taken off its edges and what is left tried again.
      ({ c0, r0, c1, r1 } = trimmed(bar, cols, c0, r0, c1, r1));
      if (!isSymbol(c0, r0, c1, r1, barCells(bar, cols, c0, r0, c1, r1))) continue;
    }
    out.push({
      x0: Math.max(0, (c0 - 1) * CELL_W),
      y0: Math.max(0, (r0 - 1) * CELL_H),
      x1: Math.min(width, (c1 + 1) * CELL_W),
      y1: Math.min(height, (r1 + 1) * CELL_H),
    });
  }
  return out;
}

/**
 * Bars run the symbol's full height: the brightness profile across its upper quarter matches the
 * one across its lower quarter. Letters with upright strokes ("ml", "11") do not. In a photo taken
 * a little askew (a few degrees) bars lean, and half the symbol's height apart the two profiles are
 * a module or more out of step: they are compared at the best of the shifts such a lean gives
 * (up to a sixth of the symbol's height either way, about 10 degrees).
 */
function sameAllTheWayDown(grey: Uint8Array, width: number, x0: number, x1: number, y0: number, y1: number): boolean {
  const lean = Math.min(Math.ceil((y1 - y0) / 6), Math.floor((x1 - x0) / 4));
  const n = x1 - x0 - 2 * lean;
  if (n < 8) return false;
  const profile = (y: number, from: number) => {
    const out = new Float64Array(n);
    for (let dy = -1; dy <= 1; dy++) for (let x = 0; x < n; x++) out[x]! += grey[(y + dy) * width + from + x]!;
    return out;
  };
  const a = profile(Math.round(y0 + (y1 - y0) * 0.25), x0 + lean);
  const mean = (v: Float64Array) => v.reduce((s, x) => s + x, 0) / v.length;
  const ma = mean(a);
  let best = -1;
  for (let shift = -lean; shift <= lean; shift++) {
    const b = profile(Math.round(y0 + (y1 - y0) * 0.75), x0 + lean + shift);
    const mb = mean(b);
    let ab = 0,
      aa = 0,
      bb = 0;
    for (let i = 0; i < n; i++) {
      ab += (a[i]! - ma) * (b[i]! - mb);
      aa += (a[i]! - ma) ** 2;
      bb += (b[i]! - mb) ** 2;
    }
    best = Math.max(best, ab / Math.sqrt(aa * bb || 1));
  }
  // And dense: a symbol crosses its mean brightness dozens of times, a price's digits a few.
  let crossings = 0;
  for (let i = 1; i < n; i++) if (a[i - 1]! < ma !== a[i]! < ma) crossings++;
  return best > 0.7 && crossings >= Math.max(12, n / 10);
}

/** Bar cells (zeros of the mask) inside the cell box. */
function barCells(bar: Uint8Array, cols: number, c0: number, r0: number, c1: number, r1: number): number {
  let n = 0;
  for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) if (bar[r * cols + c] === 0) n++;
  return n;
}

/**
 * The cell box without its thin edges: rows at its top and bottom holding under half as many bar
 * cells as its fullest row, then columns at its sides that are bars in under half of the rows left.
 */
function trimmed(bar: Uint8Array, cols: number, c0: number, r0: number, c1: number, r1: number) {
  const row = (r: number) => barCells(bar, cols, c0, r, c1, r + 1);
  let fullest = 0;
  for (let r = r0; r < r1; r++) fullest = Math.max(fullest, row(r));
  while (r1 > r0 && row(r0) < fullest / 2) r0++;
  while (r1 > r0 && row(r1 - 1) < fullest / 2) r1--;
  const col = (c: number) => barCells(bar, cols, c, r0, c + 1, r1);
  while (c1 > c0 && col(c0) < (r1 - r0) / 2) c0++;
  while (c1 > c0 && col(c1 - 1) < (r1 - r0) / 2) c1--;
  return { c0, r0, c1, r1 };
}
