import type { Box } from './ocr-types.js';

/** Plain geometry of axis-aligned boxes in photo pixels, shared by the label finders and the recognizer. */
export const cx = (b: Box) => (b.x0 + b.x1) / 2;
export const cy = (b: Box) => (b.y0 + b.y1) / 2;
export const w = (b: Box) => b.x1 - b.x0;
export const h = (b: Box) => b.y1 - b.y0;
export const union = (a: Box, b: Box): Box => ({
  x0: Math.min(a.x0, b.x0),
  y0: Math.min(a.y0, b.y0),
  x1: Math.max(a.x1, b.x1),
  y1: Math.max(a.y1, b.y1),
});
export const overlapX = (a: Box, b: Box) => Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0));
/** Whether b's middle lies inside `outer` widened by `pad` on every side. */
export const centreInside = (b: Box, outer: Box, pad = 0) =>
  cx(b) > outer.x0 - pad && cx(b) < outer.x1 + pad && cy(b) > outer.y0 - pad && cy(b) < outer.y1 + pad;
/** Intersection over union of two boxes. */
export function iou(a: Box, b: Box): number {
  const inter = overlapX(a, b) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
  return inter / (w(a) * h(a) + w(b) * h(b) - inter);
}
