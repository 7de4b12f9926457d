// Products drawn as packs: flat coloured shapes with a band, the brand and the product's short name,
// and a shading overlay so cans and bottles read as round and boxes as boxes. Pack text is real text
// on purpose (shelves are full of words that are not labels); it is small next to label prices.
import { type PackKind, type Product } from './catalogue.js';
import { FONTS, fitText, svgText } from './text.js';

/** Width / height of each pack kind's front (a can is narrow, a tub is wide). */
export const PACK_ASPECT: Record<PackKind, [number, number]> = {
  box: [0.62, 0.85],
  can: [0.55, 0.72],
  bottle: [0.3, 0.42],
  jar: [0.66, 0.85],
  carton: [0.42, 0.5],
  tub: [0.95, 1.25],
  bag: [0.68, 0.82],
  pouch: [0.62, 0.78],
  blister: [0.55, 0.7],
};

/** How tall each kind stands within the shelf's free height. */
export const PACK_HEIGHT: Record<PackKind, [number, number]> = {
  box: [0.7, 0.93],
  can: [0.44, 0.66],
  bottle: [0.78, 0.95],
  jar: [0.46, 0.68],
  carton: [0.74, 0.93],
  tub: [0.4, 0.56],
  bag: [0.7, 0.92],
  pouch: [0.58, 0.8],
  blister: [0.6, 0.82],
};

/** Gradients shared by every pack; put once in the scene's <defs>. */
export const PACK_DEFS =
  `<linearGradient id="cyl" x1="0" y1="0" x2="1" y2="0">` +
  `<stop offset="0" stop-color="#000" stop-opacity="0.38"/><stop offset="0.22" stop-color="#fff" stop-opacity="0.28"/>` +
  `<stop offset="0.5" stop-color="#fff" stop-opacity="0"/><stop offset="0.85" stop-color="#000" stop-opacity="0.18"/>` +
  `<stop offset="1" stop-color="#000" stop-opacity="0.45"/></linearGradient>` +
  `<linearGradient id="flat" x1="0" y1="0" x2="1" y2="0.3">` +
  `<stop offset="0" stop-color="#fff" stop-opacity="0.12"/><stop offset="0.7" stop-color="#000" stop-opacity="0"/>` +
  `<stop offset="1" stop-color="#000" stop-opacity="0.2"/></linearGradient>` +
  `<linearGradient id="metal" x1="0" y1="0" x2="1" y2="0">` +
  `<stop offset="0" stop-color="#8a8a8a"/><stop offset="0.3" stop-color="#eeeeee"/><stop offset="1" stop-color="#7a7a7a"/></linearGradient>`;

export type PackDrawing = { x: number; bottom: number; w: number; h: number };

/** Brand and name on the pack, only if they fit at a size at least 6 px. */
function packText(p: Product, cx: number, top: number, w: number, h: number, fill: string, caps: boolean): string {
  const brandFit = fitText(caps ? p.brand.toUpperCase() : p.brand, FONTS.sansBold, h * 0.14, 6, w * 0.86, 1);
  const nameFit = fitText(p.shortName, FONTS.sansCond, h * 0.12, 6, w * 0.86, 2);
  let out = '';
  let y = top;
  if (brandFit.width <= w * 0.9) {
    y += brandFit.size;
    out += svgText({
      x: cx,
      y,
      text: brandFit.lines[0],
      font: FONTS.sansBold,
      size: brandFit.size,
      fill,
      anchor: 'middle',
    });
    y += brandFit.size * 0.3;
  }
  if (nameFit.width <= w * 0.9) {
    for (const line of nameFit.lines) {
      y += nameFit.size * 1.05;
      out += svgText({ x: cx, y, text: line, font: FONTS.sansCond, size: nameFit.size, fill, anchor: 'middle' });
    }
  }
  return out;
}

const f = (v: number) => v.toFixed(1);

/** Dark or light text, whichever reads on a background colour. */
function inkOn(hex: string): string {
  const v = parseInt(hex.slice(1), 16);
  const luma = 0.299 * (v >> 16) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255);
  return luma > 140 ? '#1a1a1a' : '#f5f5f5';
}

/** One pack's SVG; (x, bottom) is its front's bottom-left corner in scene pixels. */
export function drawPack(p: Product, d: PackDrawing): string {
  const { x, bottom, w, h } = d;
  const top = bottom - h;
  const c = p.colours;
  const cx = x + w / 2;
  // Capitals or not, metal lid or not: the product's design, the same on every pack of it.
  const caps = p.sku.charCodeAt(p.sku.length - 1) % 2 === 0;
  const metalLid = p.upc.charCodeAt(p.upc.length - 2) % 2 === 0;
  switch (p.kind) {
    case 'box': {
      const side = w * 0.07;
      return (
        `<rect x="${f(x)}" y="${f(top)}" width="${f(w)}" height="${f(h)}" fill="${c.body}"/>` +
        `<rect x="${f(x)}" y="${f(top + h * 0.42)}" width="${f(w)}" height="${f(h * 0.24)}" fill="${c.band}"/>` +
        `<circle cx="${f(cx)}" cy="${f(top + h * 0.8)}" r="${f(Math.min(w, h) * 0.14)}" fill="${c.accent}"/>` +
        packText(p, cx, top + h * 0.06, w, h, c.text, caps) +
        `<rect x="${f(x)}" y="${f(top)}" width="${f(w)}" height="${f(h)}" fill="url(#flat)"/>` +
        `<rect x="${f(x + w - side)}" y="${f(top)}" width="${f(side)}" height="${f(h)}" fill="#000" fill-opacity="0.22"/>`
      );
    }
    case 'can': {
      const rim = Math.max(2, w * 0.08);
      return (
        `<rect x="${f(x)}" y="${f(top + rim)}" width="${f(w)}" height="${f(h - 2 * rim)}" fill="${c.body}"/>` +
        `<rect x="${f(x)}" y="${f(top + h * 0.55)}" width="${f(w)}" height="${f(h * 0.18)}" fill="${c.band}"/>` +
        `<rect x="${f(x + w * 0.03)}" y="${f(top)}" width="${f(w * 0.94)}" height="${f(rim)}" fill="url(#metal)"/>` +
        `<rect x="${f(x + w * 0.03)}" y="${f(bottom - rim)}" width="${f(w * 0.94)}" height="${f(rim)}" fill="url(#metal)"/>` +
        packText(p, cx, top + rim + h * 0.04, w, h, c.text, caps) +
        `<rect x="${f(x)}" y="${f(top + rim)}" width="${f(w)}" height="${f(h - 2 * rim)}" fill="url(#cyl)"/>`
      );
    }
    case 'bottle': {
      const neck = w * 0.36;
      const shoulder = top + h * 0.3;
      const neckTop = top + h * 0.1;
      const path =
        `M${f(x)},${f(bottom - w * 0.08)} L${f(x)},${f(shoulder + w * 0.2)} ` +
        `Q${f(x)},${f(shoulder)} ${f(cx - neck / 2)},${f(shoulder - h * 0.06)} L${f(cx - neck / 2)},${f(neckTop)} ` +
        `L${f(cx + neck / 2)},${f(neckTop)} L${f(cx + neck / 2)},${f(shoulder - h * 0.06)} ` +
        `Q${f(x + w)},${f(shoulder)} ${f(x + w)},${f(shoulder + w * 0.2)} L${f(x + w)},${f(bottom - w * 0.08)} ` +
        `Q${f(x + w)},${f(bottom)} ${f(x + w - w * 0.1)},${f(bottom)} L${f(x + w * 0.1)},${f(bottom)} Q${f(x)},${f(bottom)} ${f(x)},${f(bottom - w * 0.08)} Z`;
      const labelTop = top + h * 0.42;
      return (
        `<path d="${path}" fill="${c.body}"/>` +
        `<rect x="${f(cx - neck * 0.6)}" y="${f(top)}" width="${f(neck * 1.2)}" height="${f(h * 0.1)}" rx="${f(neck * 0.15)}" fill="${c.accent}"/>` +
        `<rect x="${f(x)}" y="${f(labelTop)}" width="${f(w)}" height="${f(h * 0.34)}" fill="${c.band}"/>` +
        packText(p, cx, labelTop + h * 0.02, w, h * 0.9, inkOn(c.band), caps) +
        `<path d="${path}" fill="url(#cyl)"/>`
      );
    }
    case 'jar': {
      const lid = h * 0.16;
      return (
        `<rect x="${f(x + w * 0.06)}" y="${f(top)}" width="${f(w * 0.88)}" height="${f(lid)}" rx="${f(w * 0.04)}" fill="${metalLid ? 'url(#metal)' : c.accent}"/>` +
        `<rect x="${f(x)}" y="${f(top + lid)}" width="${f(w)}" height="${f(h - lid)}" rx="${f(w * 0.12)}" fill="${c.body}"/>` +
        `<rect x="${f(x)}" y="${f(top + h * 0.32)}" width="${f(w)}" height="${f(h * 0.5)}" fill="${c.band}"/>` +
        packText(p, cx, top + h * 0.34, w, h, inkOn(c.band), caps) +
        `<rect x="${f(x)}" y="${f(top + lid)}" width="${f(w)}" height="${f(h - lid)}" rx="${f(w * 0.12)}" fill="url(#cyl)"/>`
      );
    }
    case 'carton': {
      const gable = h * 0.16;
      return (
        `<rect x="${f(x + w * 0.3)}" y="${f(top)}" width="${f(w * 0.4)}" height="${f(gable * 0.3)}" fill="${c.band}"/>` +
        `<path d="M${f(x)},${f(top + gable)} L${f(x + w * 0.18)},${f(top + gable * 0.3)} L${f(x + w * 0.82)},${f(top + gable * 0.3)} L${f(x + w)},${f(top + gable)} Z" fill="${c.body}"/>` +
        `<rect x="${f(x)}" y="${f(top + gable)}" width="${f(w)}" height="${f(h - gable)}" fill="${c.body}"/>` +
        `<rect x="${f(x)}" y="${f(top + h * 0.62)}" width="${f(w)}" height="${f(h * 0.2)}" fill="${c.band}"/>` +
        packText(p, cx, top + gable + h * 0.04, w, h, c.text, caps) +
        `<rect x="${f(x)}" y="${f(top + gable)}" width="${f(w)}" height="${f(h - gable)}" fill="url(#flat)"/>`
      );
    }
    case 'tub': {
      const lid = h * 0.14;
      const inset = w * 0.08;
      return (
        `<path d="M${f(x)},${f(top + lid)} L${f(x + w)},${f(top + lid)} L${f(x + w - inset)},${f(bottom)} L${f(x + inset)},${f(bottom)} Z" fill="${c.body}"/>` +
        `<rect x="${f(x - w * 0.02)}" y="${f(top)}" width="${f(w * 1.04)}" height="${f(lid)}" rx="${f(lid * 0.3)}" fill="${c.accent}"/>` +
        packText(p, cx, top + lid + h * 0.04, w * 0.85, h, c.text, caps) +
        `<path d="M${f(x)},${f(top + lid)} L${f(x + w)},${f(top + lid)} L${f(x + w - inset)},${f(bottom)} L${f(x + inset)},${f(bottom)} Z" fill="url(#cyl)"/>`
      );
    }
    case 'bag':
    case 'pouch': {
      // Crimped (bag) or zipped (pouch) top; pouches have a hang hole for peg hooks.
      const teeth = Math.max(6, Math.round(w / 6));
      let crimp = `M${f(x)},${f(top + h * 0.05)}`;
      for (let i = 1; i <= teeth; i++)
        crimp += ` L${f(x + (w * (i - 0.5)) / teeth)},${f(top)} L${f(x + (w * i) / teeth)},${f(top + h * 0.05)}`;
      const body = `${crimp} L${f(x + w)},${f(bottom - h * 0.04)} Q${f(cx)},${f(bottom + h * 0.01)} ${f(x)},${f(bottom - h * 0.04)} Z`;
      const hole =
        p.kind === 'pouch'
          ? `<ellipse cx="${f(cx)}" cy="${f(top + h * 0.08)}" rx="${f(w * 0.09)}" ry="${f(h * 0.025)}" fill="#222" fill-opacity="0.75"/>`
          : '';
      return (
        `<path d="${body}" fill="${c.body}"/>` +
        `<ellipse cx="${f(cx)}" cy="${f(top + h * 0.7)}" rx="${f(w * 0.34)}" ry="${f(h * 0.14)}" fill="${c.band}"/>` +
        `<ellipse cx="${f(cx)}" cy="${f(top + h * 0.7)}" rx="${f(w * 0.2)}" ry="${f(h * 0.08)}" fill="${c.accent}"/>` +
        packText(p, cx, top + h * 0.14, w, h, c.text, caps) +
        hole +
        `<path d="${body}" fill="url(#cyl)" fill-opacity="0.7"/>`
      );
    }
    case 'blister': {
      // A printed card with a clear bubble over the item, hung through its euro slot.
      return (
        `<rect x="${f(x)}" y="${f(top)}" width="${f(w)}" height="${f(h)}" rx="${f(w * 0.05)}" fill="${c.body}"/>` +
        `<ellipse cx="${f(cx)}" cy="${f(top + h * 0.06)}" rx="${f(w * 0.12)}" ry="${f(h * 0.025)}" fill="#222" fill-opacity="0.8"/>` +
        packText(p, cx, top + h * 0.1, w, h, c.text, caps) +
        `<rect x="${f(x + w * 0.16)}" y="${f(top + h * 0.45)}" width="${f(w * 0.68)}" height="${f(h * 0.45)}" rx="${f(w * 0.08)}" fill="#dfe6ea" fill-opacity="0.85"/>` +
        `<rect x="${f(x + w * 0.3)}" y="${f(top + h * 0.52)}" width="${f(w * 0.4)}" height="${f(h * 0.3)}" rx="${f(w * 0.05)}" fill="${c.accent}"/>` +
        `<rect x="${f(x + w * 0.2)}" y="${f(top + h * 0.47)}" width="${f(w * 0.12)}" height="${f(h * 0.4)}" fill="#fff" fill-opacity="0.45"/>`
      );
    }
  }
}
