// The flat, front-on shelf scene: a bay of 2-5 rows (shelves with a label rail, or a peg-hook row),
// 3-8 products a row, each a label plus 1-5 facings of its pack, with gaps, empty facings, stacked
// packs and occluders. Drawn as one SVG; every pack and label rectangle is kept for the photo's JSON.
import type { Product } from './catalogue.js';
import { hsl, ink, shade } from './colour.js';
import { intersect, type Point, type Rect, rotatedCorners } from './geometry.js';
import { drawLabel, pickStoreStyle, type StoreStyle } from './labels.js';
import { charm, type Currency, offerUnitPrice, pickOffer } from './money.js';
import { makeOccluder, type OccluderKind } from './occluders.js';
import { PACK_DEFS, packSvg } from './packs.js';
import type { Rng } from './random.js';
import { fitSize, textSvg } from './text.js';

export interface SceneItem {
  product: Product;
  units: number;
  price: number;
  discountedPrice: number | null;
  /** Pack rectangles in scene pixels. */
  packs: Rect[];
  /** The label's corners in scene pixels. */
  label: Point[];
  labelRect: Rect;
  labelText: string;
  occluded: boolean;
  row: number;
}

export interface Scene {
  width: number;
  height: number;
  svg: string;
  items: SceneItem[];
  rows: number;
  style: StoreStyle;
}

export interface SceneInput {
  rng: Rng;
  width: number;
  height: number;
  /** Where the bay must lie (scene pixels) to be inside the photo. */
  safe: Rect;
  /** Photo pixels per scene pixel, roughly. */
  photoScale: number;
  pool: readonly Product[];
  currency: Currency;
  /** Fewest scene pixels per centimetre wanted (so labels stay legible). */
  minPpc: number;
}

interface ShelfLook {
  wall: string;
  panel: string;
  pattern: 'holes' | 'slats' | 'plain';
  rail: string;
  surface: string;
  upright: string;
  uprightCm: number;
  floor: string;
  header: string | null;
  headerCm: number;
  baseCm: number;
  kick: string;
  continueShelves: boolean;
  labelAlign: 'left' | 'centre';
  packGap: number;
  slotGap: number;
}

function pickShelfLook(rng: Rng): ShelfLook {
  const rail = rng.pick([
    '#9aa0a6',
    '#eeeeee',
    '#1e1e1e',
    '#1f4e9c',
    '#b3261e',
    '#2e7d32',
    '#e5b800',
    '#b48a5a',
    '#5f6b73',
    '#d8d8d8',
  ]);
  const panel = rng.pick(['#f0f0ec', '#d9dcdf', '#e8e2d4', '#3b3f44', '#c9ced3', '#f7f3ea', '#b9c2c9', '#e9edf0']);
  const header = rng.chance(0.35)
    ? rng.pick([hsl(210, 0.8, 0.35), hsl(5, 0.75, 0.45), hsl(140, 0.5, 0.3), '#222222', hsl(35, 0.9, 0.5)])
    : null;
  return {
    wall: rng.pick(['#d7d3c8', '#c3c8cc', '#e6e1d6', '#9aa4ab', '#efece4']),
    panel,
    pattern: rng.pick(['holes', 'slats', 'plain', 'plain'] as const),
    rail,
    surface: rng.pick(['#c9ccce', '#e4e4e0', '#a9adb0', shade(panel, -0.1)]),
    upright: rng.pick(['#8d9399', '#cfd3d6', '#2c2f33', '#e9e9e9']),
    uprightCm: rng.float(3.5, 6),
    floor: rng.pick(['#b8b2a6', '#9c9c98', '#d0c8b8', '#7d8083']),
    header,
    headerCm: header ? rng.float(12, 20) : rng.float(3, 7),
    baseCm: rng.float(9, 16),
    kick: rng.pick([rail, '#2c2f33', '#9aa0a6', panel]),
    continueShelves: rng.chance(0.5),
    labelAlign: rng.chance(0.6) ? 'left' : 'centre',
    packGap: rng.float(0.1, 0.9),
    slotGap: rng.float(0.5, 2.5),
  };
}

interface Slot {
  p: Product;
  facings: number;
  stack: number;
  hole: number;
  w: number;
  h: number;
  extra: number;
}

interface RowPlan {
  peg: boolean;
  slots: Slot[];
  clearance: number;
}

const f = (v: number) => v.toFixed(2);

export function buildScene(inp: SceneInput): Scene {
  const { rng, safe } = inp;
  const style = pickStoreStyle(rng.fork('style'), inp.currency);
  const look = pickShelfLook(rng.fork('shelf'));
  const lr = rng.fork('layout');
  const labelW = style.widthCm;
  const labelH = style.heightCm;
  const railCm = Math.max(labelH + lr.float(0.3, 1.2), 3.6);
  const surfaceCm = lr.float(0.8, 2);
  const plateW = labelW * 0.92;
  const plateH = labelH * 1.3;

  // Products grouped by subcategory, the groups in random order, like a planogram.
  const groups = new Map<string, Product[]>();
  for (const p of lr.shuffle(inp.pool)) {
    const key = p.entry.subcategory ?? p.entry.category ?? 'other';
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  const queue = lr.shuffle([...groups.values()]).flat();
  const used = new Set<Product>();
  const takeFrom = (source: Product[], n: number) => {
    const out: Product[] = [];
    for (const p of source) {
      if (out.length >= n) break;
      if (!used.has(p)) {
        used.add(p);
        out.push(p);
      }
    }
    return out;
  };

  const perRowMax = safe.h > safe.w ? 5 : 8;
  const makeRow = (peg: boolean): RowPlan | null => {
    const picked = takeFrom(peg ? pegables : queue, lr.int(3, perRowMax));
    if (picked.length < 3) return null;
    const slots = picked.map((p): Slot => {
      const small = p.look.heightCm < 13 && ['can', 'jar', 'tub', 'long-box', 'box'].includes(p.look.shape);
      const stack = !peg && small && lr.chance(0.25) ? (p.look.shape === 'long-box' ? lr.int(2, 3) : 2) : 1;
      return { p, facings: lr.int(1, 3), stack, hole: 0, w: p.look.widthCm, h: p.look.heightCm, extra: 0 };
    });
    const tallest = Math.max(...slots.map((s) => s.h * s.stack));
    return { peg, slots, clearance: tallest + lr.float(2.5, 8) };
  };

  let nRows: number = lr.weighted([
    [2, 2],
    [3, 4],
    [4, 4],
    [5, 3],
  ] as const);
  nRows = Math.min(nRows, Math.max(2, Math.floor(safe.h / (inp.minPpc * 27))));
  const pegables = queue.filter((p) => p.pegable);
  const pegRow = pegables.length >= 3 && lr.chance(0.25) ? lr.int(0, nRows - 2) : -1;
  const rows: RowPlan[] = [];
  for (let r = 0; r < nRows; r++) {
    const row = makeRow(r === pegRow);
    if (!row) break;
    rows.push(row);
  }

  const rowHeight = (row: RowPlan) => (row.peg ? 2 + plateH + 0.6 + row.clearance : row.clearance + surfaceCm + railCm);
  // What must fit the photo: the rows (and a strip of the shelf above). The header and the base below
  // are drawn around them and may fall outside the frame.
  const bayHeight = () => 1.5 + rows.reduce((h, r) => h + rowHeight(r), 0);
  const gapOf = (row: RowPlan) => (row.peg ? look.packGap + 1.5 : look.packGap);
  const packsWidth = (row: RowPlan, s: Slot) => (s.facings + s.hole) * s.w + (s.facings + s.hole - 1) * gapOf(row);
  const slotWidth = (row: RowPlan, s: Slot) =>
    Math.max(packsWidth(row, s), (row.peg ? plateW : labelW) + 0.4) + look.slotGap + s.extra;
  const rowWidth = (row: RowPlan) => row.slots.reduce((w, s) => w + slotWidth(row, s), 0);
  const uprights = 2 * look.uprightCm;

  // Scale: fit the bay's height; drop rows while labels would get too small; trim rows too wide; and
  // when the width limits the scale, add rows (up to five) to use the height that leaves.
  let ppc = 1;
  for (let guard = 0; guard < 60; guard++) {
    const hPpc = safe.h / bayHeight();
    const widest = rows.reduce((a, r) => (rowWidth(r) > rowWidth(a) ? r : a), rows[0]);
    const wPpc = safe.w / (rowWidth(widest) + uprights);
    ppc = Math.min(hPpc, wPpc);
    if (hPpc <= wPpc && hPpc < inp.minPpc && rows.length > 2) {
      rows.pop();
      continue;
    }
    if (wPpc < hPpc && wPpc < inp.minPpc) {
      const wide = widest.slots.filter((sl) => sl.facings > 1);
      if (wide.length > 0) {
        wide[0].facings--;
        continue;
      }
      if (widest.slots.length > 3) {
        widest.slots.pop();
        continue;
      }
    }
    const spare = safe.h - bayHeight() * ppc;
    if (spare > 0.2 * safe.h && rows.length < 5) {
      const extra = makeRow(false);
      if (extra && safe.h / (bayHeight() + rowHeight(extra)) >= Math.max(inp.minPpc, ppc) * 0.9) {
        rows.push(extra);
        continue;
      }
    }
    break;
  }
  const innerW = safe.w / ppc - uprights;

  // Fill each row: more facings where they fit, sometimes an empty facing, the rest as spacing.
  for (const row of rows) {
    for (let guard = 0; guard < 60; guard++) {
      const room = innerW - rowWidth(row);
      const can = row.slots.filter((s) => s.facings < 5 && s.w + gapOf(row) <= room);
      if (can.length === 0) break;
      lr.pick(can).facings++;
    }
    const room = innerW - rowWidth(row);
    if (lr.chance(0.35)) {
      const can = row.slots.filter((s) => s.w + gapOf(row) <= room);
      if (can.length > 0) lr.pick(can).hole = 1;
    }
    const left = Math.max(0, innerW - rowWidth(row));
    const weights = row.slots.map(() => lr.float(0.2, 1));
    const total = weights.reduce((a, b) => a + b, 0);
    row.slots.forEach((s, i) => (s.extra = (left * weights[i]) / total));
  }

  const bayW = (innerW + uprights) * ppc;
  const bayH = bayHeight() * ppc;
  const spareH = Math.max(0, safe.h - bayH);
  const bayX = safe.x + (safe.w - bayW) / 2;
  const topExtra = spareH * lr.float(0.2, 0.8);
  const bayY = safe.y + topExtra;
  const X = (cm: number) => bayX + cm * ppc;
  const spanX = look.continueShelves ? 0 : bayX;
  const spanW = look.continueShelves ? inp.width : bayW;
  const cmPx = (cm: number) => cm * ppc;

  // Prices and offers for the photo.
  const offerRate = lr.pick([0, 0.12, 0.25, 0.4]);
  const pr = rng.fork('prices');

  let back = '';
  let front = '';
  const items: SceneItem[] = [];
  const priceRects: Rect[] = [];
  let y = bayY + cmPx(1.5);
  const firstRowTop = y;
  const headerTop = firstRowTop - cmPx(look.headerCm);
  const shelfLines: { top: number; h: number }[] = [];

  rows.forEach((row, r) => {
    const top = y;
    const h = cmPx(rowHeight(row));
    y += h;
    const railTop = top + h - cmPx(railCm);
    if (!row.peg) {
      back += `<rect x="${f(bayX)}" y="${f(top)}" width="${f(bayW)}" height="${f(cmPx(Math.min(8, row.clearance * 0.4)))}" fill="url(#g3shadow)"/>`;
      back += `<rect x="${f(spanX)}" y="${f(railTop - cmPx(surfaceCm))}" width="${f(spanW)}" height="${f(cmPx(surfaceCm))}" fill="${look.surface}"/>`;
      shelfLines.push({ top: railTop, h: cmPx(railCm) });
    } else {
      back += `<rect x="${f(X(look.uprightCm))}" y="${f(top + cmPx(1.6))}" width="${f(cmPx(innerW))}" height="${f(cmPx(0.5))}" fill="#8a8f94"/>`;
    }
    let x = look.uprightCm;
    for (const s of row.slots) {
      const slotW = slotWidth(row, s);
      const pw = packsWidth(row, s);
      const tagW = row.peg ? plateW : labelW;
      const packsX = x + look.slotGap / 2 + (look.labelAlign === 'centre' ? Math.max(0, (tagW + 0.4 - pw) / 2) : 0);
      const packs: Rect[] = [];
      const gap = gapOf(row);
      let tagX: number;
      let tagY: number;
      if (row.peg) {
        tagX = Math.max(x + look.slotGap / 2, packsX + (s.w - tagW) / 2);
        tagY = top + cmPx(2);
        const hangTop = 2 + plateH + 0.6;
        for (let k = 0; k < s.facings; k++) {
          const px = packsX + k * (s.w + gap);
          packs.push({ x: X(px), y: top + cmPx(hangTop), w: cmPx(s.w), h: cmPx(s.h) });
          back += `<circle cx="${f(X(px + s.w / 2))}" cy="${f(top + cmPx(1.85))}" r="${f(cmPx(0.35))}" fill="#6d7378"/>`;
          back += `<rect x="${f(X(px + s.w / 2) - cmPx(0.12))}" y="${f(top + cmPx(1.85))}" width="${f(cmPx(0.24))}" height="${f(cmPx(hangTop - 1.85 + 0.8))}" fill="#9aa0a6"/>`;
        }
      } else {
        const floorY = railTop - cmPx(surfaceCm * 0.35);
        for (let k = 0; k < s.facings; k++) {
          const px = packsX + k * (s.w + gap) + (k > 0 ? lr.float(-0.4, 0.4) * gap : 0);
          for (let st = 0; st < s.stack; st++) {
            packs.push({ x: X(px), y: floorY - cmPx(s.h * (st + 1)), w: cmPx(s.w), h: cmPx(s.h) });
          }
          back += `<ellipse cx="${f(X(px + s.w / 2))}" cy="${f(floorY)}" rx="${f(cmPx(s.w * 0.55))}" ry="${f(cmPx(0.6))}" fill="#000" fill-opacity="0.3"/>`;
        }
        tagX = look.labelAlign === 'left' ? packsX : packsX + (pw - labelW) / 2;
        tagX = Math.max(x + look.slotGap / 2, tagX);
        tagY = railTop + cmPx((railCm - labelH) / 2 + lr.float(-0.2, 0.2));
      }
      for (const p of packs) back += packSvg(s.p, p);

      // Price and offer.
      const base = s.p.entry.expectedPrice ?? s.p.basePrice;
      const price = pr.chance(0.1) ? charm(base * pr.float(0.85, 1.15), inp.currency, pr) : base;
      const offer = pr.chance(offerRate) ? pickOffer(pr, price, inp.currency) : null;
      const rect: Rect = row.peg
        ? { x: X(tagX), y: tagY, w: cmPx(plateW), h: cmPx(plateH) }
        : { x: X(tagX), y: tagY, w: cmPx(labelW), h: cmPx(labelH) };
      const label = drawLabel({
        product: s.p,
        currency: inp.currency,
        price,
        offer,
        style,
        rect,
        photoScale: inp.photoScale,
        pegPlate: row.peg,
        rng: rng.fork(`label-${r}-${items.length}`),
      });
      const tilt = !row.peg && lr.chance(style.tiltChance) ? lr.float(-1.5, 1.5) : 0;
      const labelSvg = tilt
        ? `<g transform="rotate(${f(tilt)} ${f(rect.x + rect.w / 2)} ${f(rect.y + rect.h / 2)})">${label.svg}</g>`
        : label.svg;
      front += labelSvg;
      items.push({
        product: s.p,
        units: s.facings,
        price,
        discountedPrice: offer ? offerUnitPrice(offer, price, inp.currency) : null,
        packs,
        label: rotatedCorners(rect, tilt),
        labelRect: rect,
        labelText: label.text,
        occluded: false,
        row: r,
      });
      priceRects.push(label.priceRect);
      x += slotW;
    }
  });
  const floorTop = y + cmPx(look.baseCm);

  // Background, bay, shelves.
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${inp.width}" height="${inp.height}" viewBox="0 0 ${inp.width} ${inp.height}">`;
  svg += `<defs>${PACK_DEFS}
<linearGradient id="g3shadow" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#000" stop-opacity="0.45"/><stop offset="1" stop-color="#000" stop-opacity="0"/></linearGradient>
<linearGradient id="g3floor" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#000" stop-opacity="0.25"/><stop offset="1" stop-color="#fff" stop-opacity="0.1"/></linearGradient>
<pattern id="g3holes" width="${f(cmPx(2.5))}" height="${f(cmPx(2.5))}" patternUnits="userSpaceOnUse"><circle cx="${f(cmPx(1.25))}" cy="${f(cmPx(1.25))}" r="${f(cmPx(0.28))}" fill="#000" fill-opacity="0.35"/></pattern>
<pattern id="g3slats" width="${f(cmPx(10))}" height="${f(cmPx(7.5))}" patternUnits="userSpaceOnUse"><rect width="${f(cmPx(10))}" height="${f(cmPx(0.25))}" fill="#000" fill-opacity="0.18"/></pattern>
</defs>`;
  svg += `<rect width="100%" height="100%" fill="${look.wall}"/>`;
  svg += `<rect x="${f(spanX)}" y="${f(headerTop)}" width="${f(spanW)}" height="${f(floorTop - headerTop)}" fill="${look.continueShelves ? shade(look.panel, -0.12) : look.panel}"/>`;
  svg += `<rect x="${f(bayX)}" y="${f(firstRowTop)}" width="${f(bayW)}" height="${f(floorTop - firstRowTop)}" fill="${look.panel}"/>`;
  if (look.pattern !== 'plain') {
    svg += `<rect x="${f(bayX)}" y="${f(firstRowTop)}" width="${f(bayW)}" height="${f(y - firstRowTop)}" fill="url(#g3${look.pattern})"/>`;
  }
  svg += `<rect x="0" y="${f(floorTop)}" width="${inp.width}" height="${f(inp.height - floorTop)}" fill="${look.floor}"/>`;
  svg += `<rect x="0" y="${f(floorTop)}" width="${inp.width}" height="${f(inp.height - floorTop)}" fill="url(#g3floor)"/>`;
  svg += back;
  // Shelf surfaces and rails (a continuing aisle shows empty neighbouring shelves at the same height).
  for (const s of shelfLines) {
    svg += `<rect x="${f(spanX)}" y="${f(s.top)}" width="${f(spanW)}" height="${f(s.h)}" fill="${look.rail}"/>`;
    svg += `<rect x="${f(spanX)}" y="${f(s.top)}" width="${f(spanW)}" height="${f(cmPx(0.3))}" fill="${shade(look.rail, 0.3)}"/>`;
    svg += `<rect x="${f(spanX)}" y="${f(s.top + s.h - cmPx(0.35))}" width="${f(spanW)}" height="${f(cmPx(0.35))}" fill="${shade(look.rail, -0.35)}"/>`;
  }
  // Header sign or top cap, base and kick plate, uprights.
  svg += `<rect x="${f(bayX)}" y="${f(headerTop)}" width="${f(bayW)}" height="${f(cmPx(look.headerCm))}" fill="${look.header ?? shade(look.upright, -0.1)}"/>`;
  if (look.header) {
    const tally = new Map<string, number>();
    for (const it of items) {
      const cat = it.product.entry.subcategory ?? it.product.entry.category;
      if (cat) tally.set(cat, (tally.get(cat) ?? 0) + 1);
    }
    const top = [...tally.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
    const word = (top ? top[0] : 'Aisle 7').toUpperCase();
    const size = fitSize(word, { font: 'dejavu', bold: true, spacing: 0.1 }, bayW * 0.5, cmPx(look.headerCm) * 0.5);
    svg += textSvg(word, {
      font: 'dejavu',
      bold: true,
      spacing: 0.1,
      x: bayX + bayW / 2,
      y: headerTop + cmPx(look.headerCm) / 2 + size * 0.36,
      size,
      fill: ink(look.header),
      anchor: 'middle',
    });
  }
  svg += `<rect x="${f(bayX)}" y="${f(y)}" width="${f(bayW)}" height="${f(cmPx(look.baseCm))}" fill="${look.kick}"/>`;
  svg += `<rect x="${f(bayX)}" y="${f(y)}" width="${f(bayW)}" height="${f(cmPx(1))}" fill="#000" fill-opacity="0.25"/>`;
  for (const ux of [bayX, bayX + bayW - cmPx(look.uprightCm)]) {
    svg += `<rect x="${f(ux)}" y="${f(headerTop)}" width="${f(cmPx(look.uprightCm))}" height="${f(floorTop - headerTop)}" fill="${look.upright}"/>`;
    let slots = '';
    for (let sy = firstRowTop; sy < floorTop - cmPx(3); sy += cmPx(2.5)) {
      slots += `M${f(ux + cmPx(look.uprightCm * 0.42))} ${f(sy)}h${f(cmPx(look.uprightCm * 0.16))}v${f(cmPx(1.2))}h${f(-cmPx(look.uprightCm * 0.16))}z`;
    }
    svg += `<path d="${slots}" fill="#000" fill-opacity="0.45"/>`;
    svg += `<rect x="${f(ux)}" y="${f(headerTop)}" width="${f(cmPx(look.uprightCm))}" height="${f(floorTop - headerTop)}" fill="url(#g3box)"/>`;
  }
  svg += front;

  // Occluders over some labels, never over a price.
  const occ = rng.fork('occluders');
  const count = occ.weighted([
    [0, 5],
    [1, 4],
    [2, 2],
    [3, 1],
  ] as const);
  const prices = priceRects;
  for (let k = 0, tries = 0; k < count && tries < 20; tries++) {
    const i = occ.int(0, items.length - 1);
    const it = items[i];
    const keep = prices[i];
    const lc = it.labelRect.x + it.labelRect.w / 2;
    const pc = keep.x + keep.w / 2;
    const free = keep.w > it.labelRect.w * 0.8 ? 'top' : pc > lc ? 'left' : 'right';
    const kind = occ.weighted<OccluderKind>([
      ['hand', rows[it.row].peg ? 0 : 3],
      ['sticker', 4],
      ['wobbler', rows[it.row].peg ? 0 : 2],
    ]);
    const o = makeOccluder(occ, kind, it.labelRect, keep, free);
    if (!o) continue;
    // Keep every other label's price clear too.
    if (prices.some((p, j) => j !== i && intersect(p, o.rect))) continue;
    svg += o.svg;
    for (const other of items) {
      const cut = intersect(other.labelRect, o.rect);
      if (cut && cut.w * cut.h > 0.02 * other.labelRect.w * other.labelRect.h) other.occluded = true;
    }
    k++;
  }
  svg += '</svg>';
  return { width: inp.width, height: inp.height, svg, items, rows: rows.length, style };
}
