// Things in front of a price label: a shopper's hand, a sticker, a round shelf wobbler on its stalk.
// Each is placed over the side of the label away from its price, so the price stays readable.
import { hsl, shade } from './colour.js';
import type { Rect } from './geometry.js';
import type { Rng } from './random.js';
import { fitSize, textSvg } from './text.js';

export type OccluderKind = 'hand' | 'sticker' | 'wobbler';

export interface Occluder {
  kind: OccluderKind;
  svg: string;
  /** Bounding box of the part that covers things. */
  rect: Rect;
}

const f = (v: number) => v.toFixed(2);

/**
 * An occluder over `label`, kept off `keep` (the price). `free` says which side of the label is away
 * from the price. Null when nothing fits.
 */
export function makeOccluder(
  rng: Rng,
  kind: OccluderKind,
  label: Rect,
  keep: Rect,
  free: 'left' | 'right' | 'top',
): Occluder | null {
  const H = label.h;
  if (kind === 'sticker') {
    const r = H * rng.float(0.28, 0.42);
    const cx = free === 'right' ? label.x + label.w - r * rng.float(0.4, 0.9) : label.x + r * rng.float(0.4, 0.9);
    const cy = free === 'top' ? label.y + r * rng.float(0.2, 0.6) : label.y + rng.float(0.3, 0.7) * H;
    const rect = { x: cx - r, y: cy - r, w: 2 * r, h: 2 * r };
    if (overlaps(rect, keep)) return null;
    const colour = rng.pick(['#ffe600', '#ff7a00', '#27ae60', '#ffffff', '#ff4fa3']);
    const word = rng.pick(['NEW', 'VEGAN', 'TRY ME', 'LOCAL', '★', '']);
    const round = rng.chance(0.6);
    let svg = round
      ? `<circle cx="${f(cx)}" cy="${f(cy)}" r="${f(r)}" fill="${colour}" stroke="#000" stroke-opacity="0.15" stroke-width="${f(r * 0.04)}"/>`
      : `<rect x="${f(cx - r)}" y="${f(cy - r * 0.7)}" width="${f(2 * r)}" height="${f(r * 1.4)}" rx="${f(r * 0.1)}" fill="${colour}" transform="rotate(${f(rng.float(-25, 25))} ${f(cx)} ${f(cy)})"/>`;
    if (word) {
      const size = fitSize(word, { font: 'dejavu', bold: true }, r * 1.5, r * 0.7);
      svg += textSvg(word, {
        font: 'dejavu',
        bold: true,
        x: cx,
        y: cy + size * 0.36,
        size,
        fill: colour === '#ffffff' ? '#c8102e' : '#141414',
        anchor: 'middle',
      });
    }
    return { kind, svg, rect };
  }
  if (kind === 'wobbler') {
    if (free === 'top') return null;
    const r = H * rng.float(0.55, 0.8);
    const cx = free === 'right' ? label.x + label.w + r * rng.float(-0.2, 0.3) : label.x - r * rng.float(-0.2, 0.3);
    const cy = label.y - r * rng.float(0.1, 0.5);
    const rect = { x: cx - r, y: cy - r, w: 2 * r, h: 2 * r };
    if (overlaps(rect, keep)) return null;
    const colour = rng.pick([hsl(0, 0.8, 0.48), hsl(45, 1, 0.5), hsl(200, 0.9, 0.4), hsl(120, 0.6, 0.35)]);
    let svg = `<rect x="${f(cx - H * 0.04)}" y="${f(cy)}" width="${f(H * 0.08)}" height="${f(label.y + H - cy)}" fill="#ffffff" fill-opacity="0.45"/>`;
    svg += `<circle cx="${f(cx)}" cy="${f(cy)}" r="${f(r)}" fill="${colour}" stroke="#ffffff" stroke-width="${f(r * 0.06)}"/>`;
    const word = rng.pick(['NEW!', 'Great Value', 'Top Pick', 'Try Me']);
    const size = fitSize(word, { font: 'dejavu-condensed', bold: true }, r * 1.6, r * 0.5);
    svg += textSvg(word, {
      font: 'dejavu-condensed',
      bold: true,
      x: cx,
      y: cy + size * 0.36,
      size,
      fill: '#ffffff',
      anchor: 'middle',
    });
    return { kind, svg, rect };
  }
  // A hand below the label, its index finger pointing up over the free side.
  if (free === 'top') return null;
  const fw = H * rng.float(0.42, 0.52);
  const skin = rng.pick(['#f1c7a5', '#e0ac85', '#c68b5e', '#8d5a3b', '#5c3a24', '#f5d6bf']);
  const dark = shade(skin, -0.18);
  const fingerX =
    free === 'left'
      ? label.x + rng.float(0.02, 0.25) * label.w
      : label.x + label.w - fw - rng.float(0.02, 0.25) * label.w;
  const tipY = label.y + H * rng.float(0.15, 0.5);
  const fistTop = label.y + H * 1.08;
  const fistW = fw * 4.6;
  const fistX = free === 'left' ? fingerX - fw * 0.2 : fingerX + fw * 1.2 - fistW;
  let svg = `<rect x="${f(fistX + fistW * 0.1)}" y="${f(fistTop + H)}" width="${f(fistW * 0.8)}" height="${f(H * 5)}" rx="${f(fw * 0.6)}" fill="${dark}"/>`;
  svg += `<rect x="${f(fistX)}" y="${f(fistTop)}" width="${f(fistW)}" height="${f(H * 2.4)}" rx="${f(fw * 0.9)}" fill="${skin}"/>`;
  for (let i = 1; i < 4; i++) {
    const kx = free === 'left' ? fistX + fw * (0.25 + i * 1.05) : fistX + fistW - fw * (0.25 + i * 1.05) - fw;
    svg += `<rect x="${f(kx)}" y="${f(fistTop - fw * 0.15)}" width="${f(fw)}" height="${f(fw * 1.1)}" rx="${f(fw * 0.5)}" fill="${shade(skin, -0.06)}"/>`;
  }
  svg += `<rect x="${f(fingerX)}" y="${f(tipY)}" width="${f(fw)}" height="${f(fistTop - tipY + fw)}" rx="${f(fw * 0.5)}" fill="${skin}"/>`;
  svg += `<rect x="${f(fingerX + fw * 0.2)}" y="${f(tipY + fw * 0.12)}" width="${f(fw * 0.6)}" height="${f(fw * 0.55)}" rx="${f(fw * 0.28)}" fill="${shade(skin, 0.3)}" fill-opacity="0.8"/>`;
  svg += `<rect x="${f(fingerX + fw * 0.15)}" y="${f(tipY + H * 0.55)}" width="${f(fw * 0.7)}" height="${f(Math.max(0.8, H * 0.02))}" fill="${dark}" fill-opacity="0.6"/>`;
  // The whole hand, arm included: nothing under it may be a price.
  const rect = {
    x: Math.min(fingerX, fistX),
    y: tipY,
    w: Math.max(fingerX + fw, fistX + fistW) - Math.min(fingerX, fistX),
    h: fistTop + H * 6 - tipY,
  };
  const finger = { x: fingerX, y: tipY, w: fw, h: fistTop - tipY };
  if (overlaps(finger, keep)) return null;
  return { kind, svg, rect };
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}
