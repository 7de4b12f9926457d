// Packs as SVG: boxes, cartons, bottles, jugs, pumps, trigger sprays, cans, aerosols, jars, tubs, bags
// and blister cards, each printed with its brand, name and size. A pack is drawn inside its bounding
// rectangle, so that rectangle is the pack's box in the scene.
import type { BrandLook, Product } from './catalogue.js';
import { ink, shade } from './colour.js';
import type { Rect } from './geometry.js';
import { fitSize, fitWrapped, textSvg, type FontStyle } from './text.js';

/** Gradients the packs share (bounding-box units, so one definition serves every pack). */
export const PACK_DEFS = `
<linearGradient id="g3cyl" x1="0" y1="0" x2="1" y2="0">
  <stop offset="0" stop-color="#000" stop-opacity="0.38"/><stop offset="0.16" stop-color="#000" stop-opacity="0"/>
  <stop offset="0.3" stop-color="#fff" stop-opacity="0.28"/><stop offset="0.42" stop-color="#fff" stop-opacity="0"/>
  <stop offset="0.82" stop-color="#000" stop-opacity="0.06"/><stop offset="1" stop-color="#000" stop-opacity="0.42"/>
</linearGradient>
<linearGradient id="g3box" x1="0" y1="0" x2="1" y2="0">
  <stop offset="0" stop-color="#000" stop-opacity="0.22"/><stop offset="0.05" stop-color="#000" stop-opacity="0"/>
  <stop offset="0.93" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.3"/>
</linearGradient>
<linearGradient id="g3top" x1="0" y1="0" x2="0" y2="1">
  <stop offset="0" stop-color="#fff" stop-opacity="0.25"/><stop offset="0.12" stop-color="#fff" stop-opacity="0"/>
  <stop offset="0.85" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.18"/>
</linearGradient>
<radialGradient id="g3bag" cx="0.45" cy="0.4" r="0.7">
  <stop offset="0" stop-color="#fff" stop-opacity="0.22"/><stop offset="0.6" stop-color="#fff" stop-opacity="0"/>
  <stop offset="1" stop-color="#000" stop-opacity="0.35"/>
</radialGradient>`;

const f = (v: number) => v.toFixed(2);

function brandSvg(b: BrandLook, name: string, area: Rect, onColour: string): string {
  const label = b.upper ? name.toUpperCase() : name;
  const style: FontStyle = { font: b.font, bold: b.bold, italic: b.italic, spacing: b.spacing };
  const padX = b.badge === 'none' || b.badge === 'underline' ? 0 : area.w * 0.1;
  const size = fitSize(label, style, area.w * 0.9 - 2 * padX, area.h * 0.72, 1);
  const cx = area.x + area.w / 2;
  const base = area.y + area.h / 2 + size * 0.36;
  let out = '';
  let fill = b.colour;
  const tw = Math.min(area.w * 0.96, size * 0.6 * label.length + 2 * padX);
  if (b.badge === 'ellipse') {
    if (Math.abs(luma(b.colour) - luma(b.badgeColour)) < 0.3) fill = ink(b.badgeColour);
    out += `<ellipse cx="${f(cx)}" cy="${f(area.y + area.h / 2)}" rx="${f(Math.min(area.w * 0.49, tw / 2 + size * 0.4))}" ry="${f(area.h * 0.48)}" fill="${b.badgeColour}" stroke="${b.colour}" stroke-width="${f(size * 0.06)}"/>`;
  } else if (b.badge === 'box') {
    out += `<rect x="${f(cx - tw / 2)}" y="${f(area.y + area.h * 0.08)}" width="${f(tw)}" height="${f(area.h * 0.84)}" rx="${f(size * 0.15)}" fill="${b.colour}"/>`;
    fill = ink(b.colour, '#111', '#fff');
  } else if (b.badge === 'ribbon') {
    const y0 = area.y + area.h * 0.1;
    const y1 = area.y + area.h * 0.9;
    const x0 = area.x + area.w * 0.02;
    const x1 = area.x + area.w * 0.98;
    const n = area.w * 0.05;
    out += `<path d="M${f(x0)} ${f(y0)}H${f(x1)}L${f(x1 - n)} ${f((y0 + y1) / 2)}L${f(x1)} ${f(y1)}H${f(x0)}L${f(x0 + n)} ${f((y0 + y1) / 2)}Z" fill="${b.badgeColour}"/>`;
    fill = ink(b.badgeColour, b.colour, '#fff');
  } else if (b.badge === 'underline') {
    out += `<rect x="${f(cx - tw / 2)}" y="${f(base + size * 0.12)}" width="${f(tw)}" height="${f(Math.max(1, size * 0.07))}" fill="${b.colour}"/>`;
  }
  if (b.badge === 'none' || b.badge === 'underline') {
    // The brand colour must read on the pack; fall back to the pack's ink when it would not.
    const contrast = Math.abs(luma(fill) - luma(onColour));
    if (contrast < 0.3) fill = ink(onColour);
  }
  return out + textSvg(label, { ...style, x: cx, y: base, size, fill, anchor: 'middle', maxWidth: area.w * 0.94 });
}

function luma(hex: string): number {
  const v = parseInt(hex.slice(1), 16);
  return (0.2126 * ((v >> 16) & 255) + 0.7152 * ((v >> 8) & 255) + 0.0722 * (v & 255)) / 255;
}

function linesSvg(
  lines: string[],
  style: FontStyle,
  size: number,
  cx: number,
  top: number,
  fill: string,
  maxW: number,
): string {
  return lines
    .map((l, i) =>
      textSvg(l, { ...style, x: cx, y: top + size * (0.95 + i * 1.15), size, fill, anchor: 'middle', maxWidth: maxW }),
    )
    .join('');
}

/** Motif, brand, name and size printed on the area of a pack. */
function printFace(p: Product, a: Rect): string {
  const L = p.look;
  const name = L.nameUpper ? p.core.toUpperCase() : p.core;
  const nameStyle: FontStyle = { font: L.nameFont, bold: true };
  let out = '';
  if (a.w > a.h * 2.2) {
    // Wide, low pack (foil, film): brand on the left, name to its right.
    out += `<rect x="${f(a.x + a.w * 0.6)}" y="${f(a.y)}" width="${f(a.w * 0.4)}" height="${f(a.h)}" fill="${L.accent}"/>`;
    out += brandSvg(p.brand, p.entry.brand, { x: a.x, y: a.y + a.h * 0.1, w: a.w * 0.34, h: a.h * 0.8 }, L.body);
    const fit = fitWrapped(name, nameStyle, a.w * 0.24, a.h * 0.8, a.h * 0.36, 2);
    out += linesSvg(
      fit.lines,
      nameStyle,
      fit.size,
      a.x + a.w * 0.47,
      a.y + (a.h - fit.lines.length * fit.size * 1.15) / 2,
      L.ink,
      a.w * 0.25,
    );
    if (p.sizeText) {
      const s = Math.min(a.h * 0.4, fitSize(p.sizeText, nameStyle, a.w * 0.34, a.h * 0.4));
      out += textSvg(p.sizeText, {
        ...nameStyle,
        x: a.x + a.w * 0.8,
        y: a.y + a.h / 2 + s * 0.36,
        size: s,
        fill: ink(L.accent),
        anchor: 'middle',
      });
    }
    return out;
  }
  const cx = a.x + a.w / 2;
  let nameTop = a.y + a.h * 0.34;
  let nameH = a.h * 0.3;
  let nameFill = L.ink;
  switch (L.motif) {
    case 'band':
      out += `<rect x="${f(a.x)}" y="${f(a.y + a.h * 0.5)}" width="${f(a.w)}" height="${f(a.h * 0.24)}" fill="${L.accent}"/>`;
      nameTop = a.y + a.h * 0.52;
      nameH = a.h * 0.2;
      nameFill = ink(L.accent);
      break;
    case 'stripe':
      out += `<path d="M${f(a.x)} ${f(a.y + a.h * 0.78)}L${f(a.x + a.w)} ${f(a.y + a.h * 0.6)}V${f(a.y + a.h * 0.74)}L${f(a.x)} ${f(a.y + a.h * 0.92)}Z" fill="${L.accent}"/>`;
      break;
    case 'circle': {
      const r = Math.min(a.w, a.h) * 0.26;
      out += `<circle cx="${f(cx)}" cy="${f(a.y + a.h * 0.8 - r * 0.3)}" r="${f(r)}" fill="${L.accent}"/>`;
      nameTop = a.y + a.h * 0.3;
      nameH = Math.max(a.h * 0.18, a.h * 0.8 - r * 1.3 - nameTop + a.y);
      break;
    }
    case 'wave':
      out += `<path d="M${f(a.x)} ${f(a.y + a.h * 0.72)}Q${f(a.x + a.w * 0.25)} ${f(a.y + a.h * 0.64)} ${f(cx)} ${f(a.y + a.h * 0.72)}T${f(a.x + a.w)} ${f(a.y + a.h * 0.72)}V${f(a.y + a.h)}H${f(a.x)}Z" fill="${L.accent}"/>`;
      break;
    case 'dots':
      for (let i = 0; i < 5; i++) {
        const r = Math.min(a.w, a.h) * (0.05 + 0.02 * (i % 3));
        out += `<circle cx="${f(a.x + a.w * (0.15 + 0.18 * i))}" cy="${f(a.y + a.h * (0.74 + 0.07 * (i % 2)))}" r="${f(r)}" fill="${L.accent}"/>`;
      }
      break;
    case 'split':
      out += `<rect x="${f(a.x)}" y="${f(a.y + a.h * 0.68)}" width="${f(a.w)}" height="${f(a.h * 0.32)}" fill="${L.accent}"/>`;
      break;
    case 'plain':
      break;
  }
  const brandH = Math.min(a.h * 0.2, a.w * 0.42);
  out += brandSvg(
    p.brand,
    p.entry.brand,
    { x: a.x + a.w * 0.04, y: a.y + a.h * 0.07, w: a.w * 0.92, h: brandH },
    L.body,
  );
  const fit = fitWrapped(name, nameStyle, a.w * 0.86, nameH, Math.min(a.w * 0.2, a.h * 0.12), 3);
  out += linesSvg(
    fit.lines,
    nameStyle,
    fit.size,
    cx,
    nameTop + (nameH - fit.lines.length * fit.size * 1.15) / 2,
    nameFill,
    a.w * 0.88,
  );
  if (p.sizeText) {
    const s = Math.min(a.h * 0.07, fitSize(p.sizeText, nameStyle, a.w * 0.45, a.h * 0.07));
    const under = L.motif === 'split' || L.motif === 'wave' ? ink(L.accent) : L.ink;
    out += textSvg(p.sizeText, {
      ...nameStyle,
      x: a.x + a.w * 0.94,
      y: a.y + a.h * 0.965,
      size: s,
      fill: under,
      anchor: 'end',
    });
  }
  return out;
}

function bottlePath(r: Rect, neckW: number, neckTop: number, shoulderTop: number, bodyTop: number): string {
  const cx = r.x + r.w / 2;
  const b = r.y + r.h;
  const rr = r.w * 0.12;
  return (
    `M${f(cx - neckW / 2)} ${f(neckTop)}V${f(shoulderTop)}` +
    `C${f(cx - neckW / 2)} ${f((shoulderTop + bodyTop) / 2)} ${f(r.x)} ${f(shoulderTop)} ${f(r.x)} ${f(bodyTop)}` +
    `V${f(b - rr)}Q${f(r.x)} ${f(b)} ${f(r.x + rr)} ${f(b)}H${f(r.x + r.w - rr)}Q${f(r.x + r.w)} ${f(b)} ${f(r.x + r.w)} ${f(b - rr)}` +
    `V${f(bodyTop)}C${f(r.x + r.w)} ${f(shoulderTop)} ${f(cx + neckW / 2)} ${f((shoulderTop + bodyTop) / 2)} ${f(cx + neckW / 2)} ${f(shoulderTop)}` +
    `V${f(neckTop)}Z`
  );
}

/** One pack filling `r` (its silhouette touches every side of `r`). */
export function packSvg(p: Product, r: Rect): string {
  const L = p.look;
  const cx = r.x + r.w / 2;
  const { x, y, w, h } = r;
  switch (L.shape) {
    case 'box':
    case 'tall-box':
    case 'long-box': {
      let out = `<rect x="${f(x)}" y="${f(y)}" width="${f(w)}" height="${f(h)}" rx="${f(Math.min(w, h) * 0.02)}" fill="${L.body}"/>`;
      out += printFace(p, { x: x + w * 0.04, y: y + h * 0.03, w: w * 0.92, h: h * 0.94 });
      out += `<rect x="${f(x)}" y="${f(y)}" width="${f(w)}" height="${f(h)}" fill="url(#g3box)"/>`;
      return out + `<rect x="${f(x)}" y="${f(y)}" width="${f(w)}" height="${f(h)}" fill="url(#g3top)"/>`;
    }
    case 'carton': {
      const gable = h * 0.12;
      let out = `<path d="M${f(x + w * 0.05)} ${f(y + gable * 0.35)}H${f(x + w * 0.95)}L${f(x + w)} ${f(y + gable)}H${f(x)}Z" fill="${shade(L.body, 0.25)}"/>`;
      out += `<rect x="${f(x + w * 0.05)}" y="${f(y)}" width="${f(w * 0.9)}" height="${f(gable * 0.4)}" fill="${shade(L.body, -0.15)}"/>`;
      out += `<rect x="${f(x)}" y="${f(y + gable)}" width="${f(w)}" height="${f(h - gable)}" fill="${L.body}"/>`;
      out += printFace(p, { x: x + w * 0.05, y: y + gable + h * 0.03, w: w * 0.9, h: h - gable - h * 0.05 });
      out += `<circle cx="${f(x + w * 0.72)}" cy="${f(y + gable * 0.6)}" r="${f(w * 0.12)}" fill="${L.cap}"/>`;
      return (
        out + `<rect x="${f(x)}" y="${f(y + gable)}" width="${f(w)}" height="${f(h - gable)}" fill="url(#g3box)"/>`
      );
    }
    case 'bottle':
    case 'jug':
    case 'pump':
    case 'trigger': {
      const jug = L.shape === 'jug';
      const headH = L.shape === 'trigger' ? h * 0.2 : L.shape === 'pump' ? h * 0.16 : h * 0.07;
      const neckW = jug ? w * 0.26 : L.shape === 'trigger' ? w * 0.32 : w * 0.36;
      const neckTop = y + headH;
      const shoulderTop = neckTop + (jug ? h * 0.02 : h * 0.1);
      const bodyTop = shoulderTop + h * (jug ? 0.08 : 0.12);
      const body = jug
        ? `M${f(x)} ${f(y + h * 0.14)}Q${f(x)} ${f(y + h * 0.08)} ${f(x + w * 0.1)} ${f(y + h * 0.08)}H${f(x + w * 0.9)}Q${f(x + w)} ${f(y + h * 0.08)} ${f(x + w)} ${f(y + h * 0.16)}V${f(y + h * 0.96)}Q${f(x + w)} ${f(y + h)} ${f(x + w * 0.95)} ${f(y + h)}H${f(x + w * 0.05)}Q${f(x)} ${f(y + h)} ${f(x)} ${f(y + h * 0.96)}Z`
        : bottlePath(r, neckW, neckTop, shoulderTop, bodyTop);
      const fill = L.liquid ?? L.body;
      let out = `<path d="${body}" fill="${fill}"${L.liquid ? ' fill-opacity="0.9"' : ''}/>`;
      if (jug) {
        out += `<rect x="${f(x + w * 0.62)}" y="${f(y + h * 0.11)}" width="${f(w * 0.26)}" height="${f(h * 0.1)}" rx="${f(h * 0.04)}" fill="${shade(L.body, -0.45)}"/>`;
        out += `<rect x="${f(x + w * 0.12)}" y="${f(y)}" width="${f(neckW)}" height="${f(h * 0.09)}" rx="${f(w * 0.03)}" fill="${L.cap}"/>`;
      } else if (L.shape === 'trigger') {
        out += `<rect x="${f(cx - neckW * 0.6)}" y="${f(y + headH * 0.72)}" width="${f(neckW * 1.2)}" height="${f(headH * 0.35)}" fill="${L.cap}"/>`;
        out += `<path d="M${f(cx - w * 0.3)} ${f(y)}H${f(cx + w * 0.18)}L${f(cx + w * 0.22)} ${f(y + headH * 0.75)}H${f(cx - w * 0.28)}L${f(x)} ${f(y + headH * 0.25)}V${f(y + headH * 0.08)}Z" fill="${L.cap}"/>`;
        out += `<path d="M${f(cx - w * 0.18)} ${f(y + headH * 0.7)}Q${f(cx - w * 0.32)} ${f(y + headH * 1.3)} ${f(cx - w * 0.26)} ${f(y + headH * 1.6)}" stroke="${shade(L.cap, -0.3)}" stroke-width="${f(w * 0.07)}" fill="none"/>`;
      } else if (L.shape === 'pump') {
        out += `<rect x="${f(cx - neckW * 0.55)}" y="${f(neckTop - headH * 0.2)}" width="${f(neckW * 1.1)}" height="${f(headH * 0.35)}" fill="${L.cap}"/>`;
        out += `<rect x="${f(cx - w * 0.05)}" y="${f(y + headH * 0.3)}" width="${f(w * 0.1)}" height="${f(headH * 0.6)}" fill="${shade(L.cap, -0.15)}"/>`;
        out += `<rect x="${f(x)}" y="${f(y)}" width="${f(cx - x + w * 0.14)}" height="${f(headH * 0.32)}" rx="${f(headH * 0.12)}" fill="${L.cap}"/>`;
      } else {
        out += `<rect x="${f(cx - neckW * 0.56)}" y="${f(y)}" width="${f(neckW * 1.12)}" height="${f(headH + h * 0.01)}" rx="${f(w * 0.03)}" fill="${L.cap}"/>`;
      }
      const faceTop = L.liquid ? y + h * 0.4 : jug ? y + h * 0.26 : bodyTop + h * 0.03;
      const faceBottom = L.liquid ? y + h * 0.72 : y + h * 0.93;
      if (L.liquid) {
        out += `<rect x="${f(x)}" y="${f(faceTop)}" width="${f(w)}" height="${f(faceBottom - faceTop)}" fill="${L.body}"/>`;
      }
      out += printFace(p, { x: x + w * 0.08, y: faceTop, w: w * 0.84, h: faceBottom - faceTop });
      return out + `<path d="${body}" fill="url(#g3cyl)"/>`;
    }
    case 'can':
    case 'spray': {
      const top = L.shape === 'spray' ? y + h * 0.2 : y;
      let out = '';
      if (L.shape === 'spray') {
        out += `<rect x="${f(x + w * 0.06)}" y="${f(y)}" width="${f(w * 0.88)}" height="${f(h * 0.22)}" rx="${f(w * 0.4)}" fill="${L.cap}"/>`;
        out += `<rect x="${f(x + w * 0.06)}" y="${f(y)}" width="${f(w * 0.88)}" height="${f(h * 0.22)}" rx="${f(w * 0.4)}" fill="url(#g3cyl)"/>`;
      }
      out += `<rect x="${f(x)}" y="${f(top)}" width="${f(w)}" height="${f(y + h - top)}" rx="${f(w * 0.07)}" fill="${L.body}"/>`;
      const rim = Math.max(1, h * 0.045);
      out += `<rect x="${f(x + w * 0.02)}" y="${f(top)}" width="${f(w * 0.96)}" height="${f(rim)}" fill="#b9bcc0"/>`;
      out += `<rect x="${f(x + w * 0.02)}" y="${f(y + h - rim * 0.8)}" width="${f(w * 0.96)}" height="${f(rim * 0.8)}" fill="#a4a7ab"/>`;
      out += printFace(p, { x: x + w * 0.07, y: top + rim * 1.4, w: w * 0.86, h: y + h - top - rim * 2.6 });
      return out + `<rect x="${f(x)}" y="${f(top)}" width="${f(w)}" height="${f(y + h - top)}" fill="url(#g3cyl)"/>`;
    }
    case 'jar': {
      const lid = h * 0.15;
      let out = `<rect x="${f(x + w * 0.05)}" y="${f(y)}" width="${f(w * 0.9)}" height="${f(lid)}" rx="${f(w * 0.04)}" fill="${L.cap}"/>`;
      for (let i = 1; i < 8; i++) {
        out += `<rect x="${f(x + w * 0.05 + (w * 0.9 * i) / 8)}" y="${f(y + lid * 0.15)}" width="${f(Math.max(0.6, w * 0.012))}" height="${f(lid * 0.7)}" fill="#000" fill-opacity="0.18"/>`;
      }
      out += `<rect x="${f(x)}" y="${f(y + lid * 0.95)}" width="${f(w)}" height="${f(h - lid * 0.95)}" rx="${f(w * 0.1)}" fill="${shade(L.accent, -0.45)}"/>`;
      out += `<rect x="${f(x)}" y="${f(y + h * 0.3)}" width="${f(w)}" height="${f(h * 0.55)}" fill="${L.body}"/>`;
      out += printFace(p, { x: x + w * 0.06, y: y + h * 0.31, w: w * 0.88, h: h * 0.53 });
      return out + `<rect x="${f(x)}" y="${f(y + lid)}" width="${f(w)}" height="${f(h - lid)}" fill="url(#g3cyl)"/>`;
    }
    case 'tub': {
      const lid = h * 0.13;
      const inset = w * 0.07;
      const d = `M${f(x)} ${f(y + lid)}H${f(x + w)}L${f(x + w - inset)} ${f(y + h)}H${f(x + inset)}Z`;
      let out = `<rect x="${f(x)}" y="${f(y)}" width="${f(w)}" height="${f(lid)}" rx="${f(lid * 0.2)}" fill="${L.cap}"/>`;
      out += `<path d="${d}" fill="${L.body}"/>`;
      out += printFace(p, {
        x: x + inset + w * 0.02,
        y: y + lid + h * 0.04,
        w: w - 2 * inset - w * 0.04,
        h: h - lid - h * 0.08,
      });
      return out + `<path d="${d}" fill="url(#g3cyl)"/>`;
    }
    case 'bag': {
      const crimp = h * 0.05;
      const bulge = w * 0.03;
      let zig = `M${f(x + bulge)} ${f(y + crimp)}`;
      const teeth = 10;
      for (let i = 0; i <= teeth; i++) {
        zig += `L${f(x + bulge + ((w - 2 * bulge) * i) / teeth)} ${f(i % 2 === 0 ? y + crimp : y)}`;
      }
      zig += `Q${f(x + w + bulge)} ${f(y + h / 2)} ${f(x + w - bulge)} ${f(y + h - crimp)}`;
      for (let i = teeth; i >= 0; i--) {
        zig += `L${f(x + bulge + ((w - 2 * bulge) * i) / teeth)} ${f(i % 2 === 0 ? y + h - crimp : y + h)}`;
      }
      zig += `Q${f(x - bulge)} ${f(y + h / 2)} ${f(x + bulge)} ${f(y + crimp)}Z`;
      let out = `<path d="${zig}" fill="${L.body}"/>`;
      out += printFace(p, { x: x + w * 0.08, y: y + h * 0.08, w: w * 0.84, h: h * 0.84 });
      return out + `<path d="${zig}" fill="url(#g3bag)"/>`;
    }
    case 'card': {
      let out = `<rect x="${f(x)}" y="${f(y)}" width="${f(w)}" height="${f(h)}" rx="${f(w * 0.04)}" fill="${L.body}"/>`;
      out += `<rect x="${f(cx - w * 0.12)}" y="${f(y + h * 0.03)}" width="${f(w * 0.24)}" height="${f(h * 0.035)}" rx="${f(h * 0.017)}" fill="#1c1c1c" fill-opacity="0.75"/>`;
      const bx = { x: x + w * 0.15, y: y + h * 0.3, w: w * 0.7, h: h * 0.42 };
      out += `<rect x="${f(bx.x)}" y="${f(bx.y)}" width="${f(bx.w)}" height="${f(bx.h)}" rx="${f(bx.w * 0.12)}" fill="${L.accent}"/>`;
      out += `<rect x="${f(bx.x + bx.w * 0.2)}" y="${f(bx.y + bx.h * 0.15)}" width="${f(bx.w * 0.6)}" height="${f(bx.h * 0.7)}" rx="${f(bx.w * 0.1)}" fill="${shade(L.accent, 0.4)}"/>`;
      out += `<rect x="${f(bx.x)}" y="${f(bx.y)}" width="${f(bx.w)}" height="${f(bx.h)}" rx="${f(bx.w * 0.12)}" fill="#fff" fill-opacity="0.3" stroke="#fff" stroke-opacity="0.7" stroke-width="${f(Math.max(0.8, w * 0.015))}"/>`;
      out += brandSvg(p.brand, p.entry.brand, { x: x + w * 0.05, y: y + h * 0.09, w: w * 0.9, h: h * 0.16 }, L.body);
      const nameStyle: FontStyle = { font: L.nameFont, bold: true };
      const name = L.nameUpper ? p.core.toUpperCase() : p.core;
      const fit = fitWrapped(name, nameStyle, w * 0.88, h * 0.16, w * 0.16, 2);
      out += linesSvg(fit.lines, nameStyle, fit.size, cx, y + h * 0.74, L.ink, w * 0.9);
      if (p.sizeText) {
        const s = Math.min(h * 0.05, fitSize(p.sizeText, nameStyle, w * 0.5, h * 0.05));
        out += textSvg(p.sizeText, {
          ...nameStyle,
          x: x + w * 0.93,
          y: y + h * 0.97,
          size: s,
          fill: L.ink,
          anchor: 'end',
        });
      }
      return out + `<rect x="${f(x)}" y="${f(y)}" width="${f(w)}" height="${f(h)}" fill="url(#g3top)"/>`;
    }
  }
}
