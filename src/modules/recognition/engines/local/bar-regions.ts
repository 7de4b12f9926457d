import type { Box } from './ocr-pool.js';

// Wide, short cells: wide enough to always span a bar edge, short enough to fit a symbol's height.
const CELL_W = 16;
const CELL_H = 6;

/**
 * Where a barcode is in a grey image, whether or not it can be decoded: cells whose brightness
 * changes often from left to right and little from top to bottom (vertical bars), joined into
 * regions. Used to keep barcodes away from OCR (tesseract reads bars as a line of junk and spends
 * most of its time on it) and to give the decoder an enlarged view of just the symbol.
 */
export function barRegions(grey: Uint8Array, width: number, height: number): Box[] {
  const cols = Math.floor(width / CELL_W);
  const rows = Math.floor(height / CELL_H);
  const bar = new Uint8Array(cols * rows);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let gx = 0, gy = 0;
      for (let y = r * CELL_H; y < (r + 1) * CELL_H - 1; y++) {
        for (let x = c * CELL_W; x < (c + 1) * CELL_W - 1; x++) {
          const p = y * width + x;
          gx += Math.abs(grey[p + 1]! - grey[p]!);
          gy += Math.abs(grey[p + width]! - grey[p]!);
        }
      }
      const n = (CELL_W - 1) * (CELL_H - 1);
      bar[r * cols + c] = gx / n > 12 && gx > gy * 4 ? 1 : 0;
    }
  }
  // Regions of bar cells; a symbol is many cells wide, several high, and mostly bars.
  const seen = new Uint8Array(cols * rows);
  const out: Box[] = [];
  for (let start = 0; start < bar.length; start++) {
    if (!bar[start] || seen[start]) continue;
    const stack = [start];
    seen[start] = 1;
    let c0 = cols, r0 = rows, c1 = 0, r1 = 0, count = 0;
    while (stack.length) {
      const i = stack.pop()!;
      const c = i % cols, r = (i - c) / cols;
      count++;
      c0 = Math.min(c0, c); c1 = Math.max(c1, c); r0 = Math.min(r0, r); r1 = Math.max(r1, r);
      for (const [rr, cc] of [[r - 1, c], [r + 1, c], [r, c - 1], [r, c + 1]] as const) {
        if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) continue;
        const j = rr * cols + cc;
        if (bar[j] && !seen[j]) (seen[j] = 1), stack.push(j);
      }
    }
    if (c1 - c0 + 1 < 4 || r1 - r0 + 1 < 3 || count < (c1 - c0 + 1) * (r1 - r0 + 1) * 0.6) continue;
    if (!sameAllTheWayDown(grey, width, c0 * CELL_W, (c1 + 1) * CELL_W, r0 * CELL_H, (r1 + 1) * CELL_H)) continue;
    out.push({ x0: Math.max(0, (c0 - 1) * CELL_W), y0: Math.max(0, (r0 - 1) * CELL_H), x1: Math.min(width, (c1 + 2) * CELL_W), y1: Math.min(height, (r1 + 2) * CELL_H) });
  }
  return out;
}

/**
 * Bars run the symbol's full height: the brightness profile across its upper quarter matches the
 * one across its lower quarter. Letters with upright strokes ("ml", "11") do not.
 */
function sameAllTheWayDown(grey: Uint8Array, width: number, x0: number, x1: number, y0: number, y1: number): boolean {
  const profile = (y: number) => {
    const out = new Float64Array(x1 - x0);
    for (let dy = -1; dy <= 1; dy++) for (let x = x0; x < x1; x++) out[x - x0]! += grey[(y + dy) * width + x]!;
    return out;
  };
  const a = profile(Math.round(y0 + (y1 - y0) * 0.25));
  const b = profile(Math.round(y0 + (y1 - y0) * 0.75));
  const mean = (v: Float64Array) => v.reduce((s, x) => s + x, 0) / v.length;
  const ma = mean(a), mb = mean(b);
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += (a[i]! - ma) * (b[i]! - mb);
    aa += (a[i]! - ma) ** 2;
    bb += (b[i]! - mb) ** 2;
  }
  // And dense: a symbol crosses its mean brightness dozens of times, a price's digits a few.
  let crossings = 0;
  for (let i = 1; i < a.length; i++) if (a[i - 1]! < ma !== a[i]! < ma) crossings++;
  return ab / Math.sqrt(aa * bb || 1) > 0.7 && crossings >= Math.max(12, a.length / 10);
}
