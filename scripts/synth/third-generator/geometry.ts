// Plane geometry: rectangles, points and 3x3 homographies (row-major), used to carry every box drawn
// on the flat shelf scene into the photographed image exactly as the pixels are carried.

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export type Point = readonly [number, number];
export type Mat3 = readonly [number, number, number, number, number, number, number, number, number];

export const IDENTITY: Mat3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];

export function multiply(a: Mat3, b: Mat3): Mat3 {
  const out: number[] = [];
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      out.push(a[r * 3] * b[c] + a[r * 3 + 1] * b[3 + c] + a[r * 3 + 2] * b[6 + c]);
    }
  }
  return out as unknown as Mat3;
}

/** Product of the matrices, applied right to left (the last one first). */
export function compose(...ms: Mat3[]): Mat3 {
  return ms.reduce((acc, m) => multiply(acc, m), IDENTITY);
}

export function invert(m: Mat3): Mat3 {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (Math.abs(det) < 1e-12) throw new Error('singular matrix');
  const k = 1 / det;
  return [
    A * k,
    -(b * i - c * h) * k,
    (b * f - c * e) * k,
    B * k,
    (a * i - c * g) * k,
    -(a * f - c * d) * k,
    C * k,
    -(a * h - b * g) * k,
    (a * e - b * d) * k,
  ];
}

export function translate(tx: number, ty: number): Mat3 {
  return [1, 0, tx, 0, 1, ty, 0, 0, 1];
}

export function scale(s: number): Mat3 {
  return [s, 0, 0, 0, s, 0, 0, 0, 1];
}

export function apply(m: Mat3, p: Point): Point {
  const [x, y] = p;
  const w = m[6] * x + m[7] * y + m[8];
  return [(m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w];
}

export function corners(r: Rect): Point[] {
  return [
    [r.x, r.y],
    [r.x + r.w, r.y],
    [r.x + r.w, r.y + r.h],
    [r.x, r.y + r.h],
  ];
}

/** The corners of `r` turned by `deg` degrees about its centre. */
export function rotatedCorners(r: Rect, deg: number): Point[] {
  const cx = r.x + r.w / 2;
  const cy = r.y + r.h / 2;
  const t = (deg * Math.PI) / 180;
  const cos = Math.cos(t);
  const sin = Math.sin(t);
  return corners(r).map(([x, y]) => [cx + (x - cx) * cos - (y - cy) * sin, cy + (x - cx) * sin + (y - cy) * cos]);
}

/** Integer box [x0, y0, x1, y1] around the mapped points, kept inside a width x height image. */
export function mappedBox(m: Mat3, points: readonly Point[], width: number, height: number): number[] {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const p of points) {
    const [x, y] = apply(m, p);
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  const clamp = (v: number, hi: number) => Math.min(hi, Math.max(0, v));
  return [
    clamp(Math.floor(x0), width),
    clamp(Math.floor(y0), height),
    clamp(Math.ceil(x1), width),
    clamp(Math.ceil(y1), height),
  ];
}

export function intersect(a: Rect, b: Rect): Rect | null {
  const x0 = Math.max(a.x, b.x);
  const y0 = Math.max(a.y, b.y);
  const x1 = Math.min(a.x + a.w, b.x + b.w);
  const y1 = Math.min(a.y + a.h, b.y + b.h);
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : null;
}

export function inset(r: Rect, dx: number, dy = dx): Rect {
  return { x: r.x + dx, y: r.y + dy, w: Math.max(0, r.w - 2 * dx), h: Math.max(0, r.h - 2 * dy) };
}
