// Shelf-edge labels as SVG, in this generator's own store styles: white paper, electronic e-paper,
// dark labels with white text, US tags with a unit-price box, discounter labels with a coloured band,
// centred labels; yellow multibuy, red sale and club-price panels; raised pence or cents; barcodes.
// Each label also returns its text in reading order and the part that holds the price (kept clear of
// occluders).
import { barsPath, printedGroups } from './barcode.js';
import type { Product } from './catalogue.js';
import { hsl, ink } from './colour.js';
import { inset, type Rect } from './geometry.js';
import {
  type Currency,
  fmt,
  type MoneyStyle,
  type Offer,
  offerHeadline,
  priceSpans,
  unitPrice,
  type UnitPrice,
} from './money.js';
import type { Rng } from './random.js';
import {
  ALL_FONTS,
  fitSize,
  fitWrapped,
  type FontKey,
  type FontStyle,
  SANS_FONTS,
  spansSvg,
  spansWidth,
  textSvg,
  textWidth,
} from './text.js';

export type LabelFamily = 'paper' | 'esl' | 'dark' | 'us' | 'discounter' | 'centre';

export interface StoreStyle {
  family: LabelFamily;
  money: MoneyStyle;
  bg: string;
  fg: string;
  priceFg: string;
  /** Band, unit-price box or frame colour. */
  accent: string;
  font: FontKey;
  priceFont: FontKey;
  widthCm: number;
  heightCm: number;
  arrangement: 'price-right' | 'price-left' | 'price-bottom';
  nameMode: 'brand-line' | 'inline' | 'upper-inline' | 'brand-upper';
  band: boolean;
  barcodeRate: number;
  unitRate: number;
  unitInPrice: boolean;
  codeRate: number;
  codeKind: 'date' | 'sel' | 'loc' | 'digits' | 'week';
  digitsUnderBars: boolean;
  /** Barcode module width wanted in the photo, in px. */
  modulePx: readonly [number, number];
  radius: number;
  promoWhole: boolean;
  multibuyBg: string;
  saleBg: string;
  clubBg: string;
  tiltChance: number;
  taxLine: boolean;
}

export function pickStoreStyle(rng: Rng, c: Currency): StoreStyle {
  const family = rng.weighted<LabelFamily>([
    ['paper', 4],
    ['esl', 3],
    ['dark', 2],
    ['us', c === 'USD' ? 5 : 0],
    ['discounter', 2],
    ['centre', 2],
  ]);
  const sans = rng.pick(SANS_FONTS);
  const money: MoneyStyle = {
    euroAfter: c === 'EUR' ? rng.chance(0.8) : false,
    smallUnit: rng.chance(c === 'GBP' ? 0.6 : 0.35),
    raised: rng.chance(family === 'us' ? 0.8 : family === 'esl' ? 0.5 : 0.3),
    wholeDecimals: rng.chance(0.3),
  };
  const dark = [hsl(220, 0.55, 0.16), '#151515', hsl(150, 0.6, 0.14), hsl(350, 0.55, 0.2), hsl(200, 0.7, 0.22)];
  const base: StoreStyle = {
    family,
    money,
    bg: rng.pick(['#ffffff', '#fbfbf5', '#f7f7f2', '#fffdf0']),
    fg: '#141414',
    priceFg: '#141414',
    accent: rng.pick([
      hsl(215, 0.8, 0.4),
      hsl(0, 0.75, 0.45),
      hsl(140, 0.6, 0.32),
      hsl(30, 0.9, 0.5),
      hsl(270, 0.45, 0.4),
    ]),
    font: rng.chance(0.8) ? sans : rng.pick(ALL_FONTS),
    priceFont: rng.chance(0.7)
      ? rng.pick(['lib', 'dejavu', 'dejavu-condensed', 'lib-narrow'] as const)
      : rng.pick(ALL_FONTS),
    widthCm: rng.float(7, 10.5),
    heightCm: rng.float(3.2, 4.2),
    arrangement: rng.weighted([
      ['price-right', 6],
      ['price-left', 2],
      ['price-bottom', 2],
    ] as const),
    nameMode: rng.pick(['brand-line', 'inline', 'upper-inline', 'brand-upper'] as const),
    band: false,
    barcodeRate: rng.pick([0, 0.5, 0.85, 1]),
    unitRate: rng.pick([0.3, 0.7, 1, 1]),
    unitInPrice: rng.chance(0.5),
    codeRate: rng.pick([0, 0.4, 0.9]),
    codeKind: rng.pick(['date', 'sel', 'loc', 'digits', 'week'] as const),
    digitsUnderBars: rng.chance(0.85),
    modulePx: rng.pick([
      [1, 1.6],
      [1.3, 2.4],
      [2, 3],
      [2.5, 4],
      [1, 4],
    ] as const),
    radius: rng.float(0, 0.06),
    promoWhole: rng.chance(0.6),
    multibuyBg: rng.pick(['#ffd200', '#ffe14a', '#fff04d', '#ffc20e']),
    saleBg: rng.pick(['#d7191f', '#e30613', '#c8102e', '#ef3e33']),
    clubBg: rng.pick([hsl(275, 0.5, 0.35), hsl(188, 1, 0.27), hsl(210, 1, 0.3), hsl(125, 0.45, 0.3)]),
    tiltChance: rng.pick([0, 0, 0.2, 0.5]),
    taxLine: c === 'JPY' && rng.chance(0.5),
  };
  switch (family) {
    case 'esl':
      return {
        ...base,
        bg: rng.pick(['#d9d9cf', '#dcdcd4', '#e0e0d8', '#d2d4cc']),
        accent: rng.pick(['#2b2b2b', '#ececec', '#f4f4f4', '#3a3f44']),
        widthCm: rng.float(6, 9.5),
        heightCm: rng.float(3.3, 4.4),
        radius: 0.1,
        font: sans,
        priceFont: rng.pick(SANS_FONTS),
        promoWhole: false,
        saleBg: '#c8102e',
        tiltChance: 0,
      };
    case 'dark':
      return {
        ...base,
        bg: rng.pick(dark),
        fg: '#ffffff',
        priceFg: rng.pick(['#ffffff', '#ffd23f', '#ffe680']),
        promoWhole: false,
      };
    case 'us':
      return {
        ...base,
        accent: rng.pick(['#f7941d', '#ffe600', '#cfe3f5', '#ffd8a8', '#e8e8e8']),
        arrangement: 'price-right',
        heightCm: rng.float(3.0, 3.9),
        widthCm: rng.float(8.5, 11),
        nameMode: rng.pick(['upper-inline', 'inline'] as const),
        unitRate: 1,
        money: { ...money, smallUnit: true },
      };
    case 'discounter':
      return {
        ...base,
        band: true,
        arrangement: rng.chance(0.6) ? 'price-left' : 'price-right',
        priceFont: rng.pick(SANS_FONTS),
      };
    case 'centre':
      return { ...base, arrangement: 'price-bottom', heightCm: rng.float(3.8, 4.8), widthCm: rng.float(6.5, 9) };
    default:
      return { ...base, band: rng.chance(0.25) };
  }
}

export interface LabelInput {
  product: Product;
  currency: Currency;
  price: number;
  offer: Offer | null;
  style: StoreStyle;
  rect: Rect;
  /** Photo pixels per scene pixel, near the label (for barcode module widths). */
  photoScale: number;
  /** A plastic scan plate with a hook hole (peg rows). */
  pegPlate: boolean;
  rng: Rng;
}

export interface LabelOutput {
  svg: string;
  text: string;
  /** Where the regular price is printed (occluders keep off it). */
  priceRect: Rect;
}

interface Scheme {
  bg: string;
  fg: string;
  priceFg: string;
  priceBg: string | null;
  promoFg: string;
}

function scheme(s: StoreStyle, offer: Offer | null): Scheme {
  const plain: Scheme = { bg: s.bg, fg: s.fg, priceFg: s.priceFg, priceBg: null, promoFg: s.priceFg };
  if (!offer || offer.kind === 'club') return plain;
  const red = offer.kind === 'was-now';
  if (s.family === 'esl') return { ...plain, promoFg: '#c8102e' };
  const promoBg = red ? s.saleBg : s.multibuyBg;
  const promoFg = ink(promoBg, '#141414', '#ffffff');
  // On yellow the big number stays black and the offer turns red; on red everything is white.
  if (s.promoWhole)
    return { bg: promoBg, fg: promoFg, priceFg: promoFg, priceBg: null, promoFg: red ? promoFg : '#c8102e' };
  return { ...plain, priceBg: promoBg, promoFg };
}

const f = (v: number) => v.toFixed(2);

function code(rng: Rng, kind: StoreStyle['codeKind']): string {
  switch (kind) {
    case 'date':
      return `${String(rng.int(1, 28)).padStart(2, '0')}/${String(rng.int(1, 12)).padStart(2, '0')}/${rng.pick(['24', '25', '26'])}`;
    case 'sel':
      return `SEL ${rng.digits(5)}`;
    case 'loc':
      return `${rng.int(1, 24)}-${rng.int(1, 6)}-${rng.int(1, 12)}`;
    case 'digits':
      return `${rng.digits(4)} ${rng.pick(['A', 'B', 'C', 'D'])}${rng.int(1, 9)}`;
    case 'week':
      return `W${rng.int(1, 52)} ${rng.digits(3)}`;
  }
}

interface Line {
  text: string;
  bold: boolean;
  rel: number;
}

function nameLines(p: Product, mode: StoreStyle['nameMode'], rng: Rng): Line[] {
  const brand = p.entry.brand;
  const size = p.sizeText ?? '';
  switch (mode) {
    case 'brand-line':
      return [
        { text: brand, bold: true, rel: 1 },
        { text: p.core, bold: false, rel: 1 },
        ...(size ? [{ text: size, bold: false, rel: 0.85 }] : []),
      ];
    case 'brand-upper':
      return [
        { text: brand.toUpperCase(), bold: true, rel: 1 },
        { text: p.core.toUpperCase(), bold: false, rel: 0.95 },
        ...(size ? [{ text: size, bold: false, rel: 0.85 }] : []),
      ];
    case 'upper-inline':
      return [{ text: `${brand} ${p.core} ${size}`.trim().toUpperCase(), bold: true, rel: 1 }];
    case 'inline':
      return rng.chance(0.5)
        ? [{ text: `${brand} ${p.core} ${size}`.trim(), bold: true, rel: 1 }]
        : [
            { text: `${brand} ${p.core}`, bold: true, rel: 1 },
            ...(size ? [{ text: size, bold: false, rel: 0.85 }] : []),
          ];
  }
}

/** Name lines stacked into `area`; each long line wraps over at most three lines. */
function drawLines(
  lines: Line[],
  area: Rect,
  font: FontKey,
  fill: string,
  align: 'start' | 'middle',
): { svg: string; texts: string[] } {
  // Try a base size, wrap, and shrink until the stack fits.
  let base = Math.min(area.h / (lines.length * 1.2), area.h * 0.42);
  let laid: { text: string; size: number; bold: boolean }[] = [];
  for (let i = 0; i < 30; i++) {
    laid = [];
    for (const l of lines) {
      const st: FontStyle = { font, bold: l.bold };
      const size = base * l.rel;
      const fit = fitWrapped(l.text, st, area.w, size * 3.5, size, 3);
      for (const t of fit.lines) laid.push({ text: t, size: fit.size, bold: l.bold });
    }
    const height = laid.reduce((h, l) => h + l.size * 1.18, 0);
    if (height <= area.h) break;
    base *= 0.93;
  }
  const height = laid.reduce((h, l) => h + l.size * 1.18, 0);
  let y = area.y + Math.max(0, (area.h - height) / 2) * 0.4;
  let svg = '';
  for (const l of laid) {
    y += l.size * 1.18;
    const x = align === 'middle' ? area.x + area.w / 2 : area.x;
    svg += textSvg(l.text, {
      font,
      bold: l.bold,
      x,
      y: y - l.size * 0.22,
      size: l.size,
      fill,
      anchor: align,
      maxWidth: area.w,
    });
  }
  return { svg, texts: laid.map((l) => l.text) };
}

interface PriceBlock {
  svg: string;
  texts: string[];
}

/** The price part of the label: a plain price, a multibuy, was/now, or a club price panel. */
function drawPrice(inp: LabelInput, sc: Scheme, P: Rect, unit: UnitPrice | null, align: 'end' | 'middle'): PriceBlock {
  const { style: s, currency: c, price, offer, rng } = inp;
  const st = s.money;
  const pf: FontStyle = { font: s.priceFont, bold: true };
  let svg = '';
  const texts: string[] = [];
  if (sc.priceBg)
    svg += `<rect x="${f(P.x - P.h * 0.04)}" y="${f(P.y - P.h * 0.04)}" width="${f(P.w + P.h * 0.08)}" height="${f(P.h * 1.08)}" rx="${f(P.h * 0.06)}" fill="${sc.priceBg}"/>`;
  const fg = sc.priceBg ? ink(sc.priceBg) : sc.priceFg;
  const promoFg = sc.priceBg ? (ink(sc.priceBg) === '#ffffff' ? '#ffffff' : '#c8102e') : sc.promoFg;

  // Reserve room under the price for the unit price when it lives here.
  const unitH = unit && s.unitInPrice ? P.h * 0.17 : 0;
  const taxH = s.taxLine && !offer ? P.h * 0.15 : 0;
  const body: Rect = { x: P.x, y: P.y, w: P.w, h: P.h - unitH - taxH };

  const bigPrice = (v: number, area: Rect, fill: string, maxRel = 0.86) => {
    const spans = priceSpans(v, c, st);
    const size = Math.min(area.h * maxRel, (area.w * 0.97) / (spansWidth(spans, pf, 1) || 1));
    const raisedSpans = spans.some((sp) => sp.raise > 0);
    const baseline = area.y + area.h / 2 + size * (raisedSpans ? 0.42 : 0.36);
    return spansSvg(spans, {
      ...pf,
      x: align === 'end' ? area.x + area.w : area.x + area.w / 2,
      y: baseline,
      size,
      fill,
      anchor: align,
      maxWidth: area.w,
    });
  };
  const line = (text: string, area: Rect, fill: string, bold = true, maxRel = 0.8) => {
    const ls: FontStyle = { font: s.priceFont, bold };
    const size = Math.min(area.h * maxRel, fitSize(text, ls, area.w * 0.97, area.h * maxRel));
    return textSvg(text, {
      ...ls,
      x: align === 'end' ? area.x + area.w : area.x + area.w / 2,
      y: area.y + area.h / 2 + size * 0.36,
      size,
      fill,
      anchor: align,
      maxWidth: area.w,
    });
  };
  const split = (r: Rect, a: number): [Rect, Rect] => [
    { x: r.x, y: r.y, w: r.w, h: r.h * a },
    { x: r.x, y: r.y + r.h * a, w: r.w, h: r.h * (1 - a) },
  ];

  if (!offer) {
    svg += bigPrice(price, body, fg);
    texts.push(fmt(price, c, st));
  } else if (offer.kind === 'multibuy' || offer.kind === 'three-for-two') {
    const head = offerHeadline(offer, c, st, rng);
    const single = fmt(price, c, st);
    const singleText = rng.pick(
      c === 'USD'
        ? [`Reg. ${single}`, `${single} ea`, `Single ${single}`]
        : [`${single} each`, `Single ${single}`, `${single}`],
    );
    const [top, bottom] = split(body, 0.56);
    svg += line(head, top, promoFg, true, 0.9);
    svg += line(singleText, bottom, fg, true, 0.78);
    texts.push(head, singleText);
  } else if (offer.kind === 'was-now') {
    const was = fmt(price, c, st);
    const usStyle = c === 'USD' && rng.chance(0.6);
    const wasText = usStyle ? `Reg. ${was}` : rng.pick([`WAS ${was}`, `Was ${was}`]);
    const [top, bottom] = split(body, 0.32);
    svg += line(wasText, top, fg, false, 0.85);
    if (!usStyle && rng.chance(0.4)) {
      const ls: FontStyle = { font: s.priceFont, bold: false };
      const size = Math.min(top.h * 0.85, fitSize(wasText, ls, top.w * 0.97, top.h * 0.85));
      const w = Math.min(top.w, textWidth(was, ls, size));
      const x0 = align === 'end' ? top.x + top.w - w : top.x + top.w / 2 + textWidth(wasText, ls, size) / 2 - w;
      svg += `<rect x="${f(x0)}" y="${f(top.y + top.h / 2)}" width="${f(w)}" height="${f(Math.max(1, size * 0.08))}" fill="${fg}"/>`;
    }
    const nowWord = usStyle ? 'SALE' : rng.pick(['NOW', 'Now', 'Only']);
    const nowW = bottom.w * 0.26;
    const nowArea: Rect = { x: bottom.x, y: bottom.y + bottom.h * 0.2, w: nowW, h: bottom.h * 0.4 };
    const nowSize = fitSize(nowWord, { font: s.priceFont, bold: true }, nowArea.w * 0.95, nowArea.h * 0.8);
    svg += textSvg(nowWord, {
      font: s.priceFont,
      bold: true,
      x: nowArea.x,
      y: nowArea.y + nowArea.h / 2 + nowSize * 0.36,
      size: nowSize,
      fill: promoFg,
    });
    svg += bigPrice(offer.now, { x: bottom.x + nowW, y: bottom.y, w: bottom.w - nowW, h: bottom.h }, promoFg, 0.92);
    texts.push(wasText, nowWord, fmt(offer.now, c, st));
  } else {
    const [top, bottom] = split(body, 0.58);
    svg += bigPrice(price, top, fg, 0.9);
    const panel = inset(bottom, 0, bottom.h * 0.04);
    svg += `<rect x="${f(panel.x - panel.h * 0.1)}" y="${f(panel.y)}" width="${f(panel.w + panel.h * 0.1)}" height="${f(panel.h)}" rx="${f(panel.h * 0.15)}" fill="${s.clubBg}"/>`;
    const member = fmt(offer.member, c, st);
    const clubText = `${offer.title} ${member}`;
    const ls: FontStyle = { font: s.priceFont, bold: true };
    const size = Math.min(panel.h * 0.62, fitSize(clubText, ls, panel.w * 0.94, panel.h * 0.62));
    svg += textSvg(clubText, {
      ...ls,
      x: panel.x + panel.w / 2 - panel.h * 0.05,
      y: panel.y + panel.h / 2 + size * 0.36,
      size,
      fill: '#ffffff',
      anchor: 'middle',
      maxWidth: panel.w * 0.96,
    });
    texts.push(fmt(price, c, st), clubText);
  }
  if (taxH) {
    const tax = `incl. tax ${fmt(Math.floor(price * 1.08), c, st)}`;
    svg += line(tax, { x: P.x, y: P.y + body.h, w: P.w, h: taxH }, fg, false, 0.85);
    texts.push(tax);
  }
  if (unitH && unit) {
    svg += line(unit.text, { x: P.x, y: P.y + P.h - unitH, w: P.w, h: unitH }, fg, false, 0.85);
    texts.push(unit.text);
  }
  return { svg, texts };
}

/** Module width (scene px) for a barcode in `width`, or null when it would be under a photo pixel. */
function barcodeModule(inp: LabelInput, width: number, height: number): number | null {
  const { style: s, rng, photoScale } = inp;
  const quiet = inp.product.entry.upc.length === 12 ? 9 : 11;
  let m = rng.float(s.modulePx[0], s.modulePx[1]) / photoScale;
  if ((95 + quiet + 7) * m > width) m = width / (95 + quiet + 7);
  if (m * photoScale < 0.95) return null;
  // Shelf-label barcodes are often cut short; the bars still need some height to be bars.
  const digitsH = s.digitsUnderBars ? height * 0.3 : 0;
  return height - digitsH >= Math.max(m * 8, 6 / photoScale) ? m : null;
}

/** A barcode with its digits, `m` px a module. */
function drawBarcode(
  inp: LabelInput,
  area: Rect,
  m: number,
  fill: string,
  whiteBox: boolean,
): { svg: string; text: string } {
  const { style: s, rng } = inp;
  const upc = inp.product.entry.upc;
  const quiet = upc.length === 12 ? 9 : 11;
  const need = (n: number) => (95 + quiet + 7) * n;
  const digitsH = s.digitsUnderBars ? area.h * 0.3 : 0;
  const barH = area.h - digitsH;
  const x0 = area.x + quiet * m;
  let svg = '';
  if (whiteBox)
    svg += `<rect x="${f(area.x)}" y="${f(area.y - m * 2)}" width="${f(need(m))}" height="${f(area.h + m * 3)}" fill="#ffffff"/>`;
  svg += barsPath(upc, { x: x0, y: area.y, moduleWidth: m, barHeight: barH, fill }, digitsH * 0.45);
  const groups = printedGroups(upc);
  if (digitsH > 0) {
    const ds: FontStyle = { font: rng.chance(0.5) ? 'dejavu-mono' : 'lib' };
    const size = Math.min(digitsH * 0.95, m * 9);
    const y = area.y + area.h - digitsH * 0.08;
    if (groups.length === 3) {
      svg += textSvg(groups[0], { ...ds, x: x0 - m * 2, y, size, fill, anchor: 'end' });
      svg += textSvg(groups[1], { ...ds, x: x0 + m * 24, y, size, fill, anchor: 'middle', maxWidth: m * 40 });
      svg += textSvg(groups[2], { ...ds, x: x0 + m * 71, y, size, fill, anchor: 'middle', maxWidth: m * 40 });
    } else {
      svg += textSvg(groups[0], { ...ds, x: x0 - m * 2, y, size: size * 0.8, fill, anchor: 'end' });
      svg += textSvg(groups[1], { ...ds, x: x0 + m * 27.5, y, size, fill, anchor: 'middle', maxWidth: m * 33 });
      svg += textSvg(groups[2], { ...ds, x: x0 + m * 67.5, y, size, fill, anchor: 'middle', maxWidth: m * 33 });
      svg += textSvg(groups[3], { ...ds, x: x0 + m * 97, y, size: size * 0.8, fill });
    }
  }
  return { svg, text: digitsH > 0 ? groups.join(' ') : '' };
}

export function drawLabel(inp: LabelInput): LabelOutput {
  const { rect: R, style: s, offer, rng, product: p } = inp;
  const sc = scheme(s, offer);
  let svg = '';
  let content: Rect;
  const H = R.h;
  if (inp.pegPlate) {
    svg += `<rect x="${f(R.x)}" y="${f(R.y)}" width="${f(R.w)}" height="${f(R.h)}" rx="${f(H * 0.08)}" fill="#e9eef0" fill-opacity="0.85" stroke="#9aa3a8" stroke-width="${f(H * 0.015)}"/>`;
    svg += `<circle cx="${f(R.x + R.w / 2)}" cy="${f(R.y + H * 0.09)}" r="${f(H * 0.05)}" fill="#333" fill-opacity="0.7"/>`;
    content = { x: R.x + H * 0.05, y: R.y + H * 0.18, w: R.w - H * 0.1, h: H * 0.78 };
    svg += `<rect x="${f(content.x)}" y="${f(content.y)}" width="${f(content.w)}" height="${f(content.h)}" fill="${sc.bg}"/>`;
  } else if (s.family === 'esl') {
    svg += `<rect x="${f(R.x)}" y="${f(R.y)}" width="${f(R.w)}" height="${f(R.h)}" rx="${f(H * s.radius)}" fill="${s.accent}"/>`;
    const border = H * 0.08;
    content = { x: R.x + border, y: R.y + border, w: R.w - 2 * border - H * 0.12, h: R.h - 2 * border };
    svg += `<rect x="${f(content.x)}" y="${f(content.y)}" width="${f(content.w)}" height="${f(content.h)}" fill="${sc.bg}"/>`;
    svg += `<circle cx="${f(R.x + R.w - border - H * 0.03)}" cy="${f(R.y + H * 0.2)}" r="${f(H * 0.035)}" fill="${rng.pick(['#2ecc40', '#555', '#555'])}"/>`;
  } else {
    svg += `<rect x="${f(R.x)}" y="${f(R.y)}" width="${f(R.w)}" height="${f(R.h)}" rx="${f(H * s.radius)}" fill="${sc.bg}"/>`;
    content = R;
  }
  const Hc = content.h;
  const pad = Hc * 0.07;
  let c = inset(content, pad, pad * 0.8);
  const texts: string[] = [];

  // Promo header or coloured band across the top.
  const header = offerHeader(inp);
  if (s.band || (header && s.family !== 'us')) {
    const bandH = Hc * 0.2;
    const bandFill =
      header && offer?.kind === 'was-now' && !s.promoWhole
        ? s.saleBg
        : header && s.family === 'esl'
          ? '#141414'
          : s.band
            ? s.accent
            : sc.fg;
    svg += `<rect x="${f(content.x)}" y="${f(content.y)}" width="${f(content.w)}" height="${f(bandH)}" fill="${bandFill}"${s.family === 'esl' || inp.pegPlate ? '' : ` rx="${f(H * s.radius)}"`}/>`;
    const bandText =
      header ?? (s.nameMode === 'brand-line' || s.nameMode === 'brand-upper' ? p.entry.brand.toUpperCase() : null);
    if (bandText) {
      const bs: FontStyle = { font: s.font, bold: true, spacing: 0.04 };
      const size = fitSize(bandText, bs, content.w * 0.9, bandH * 0.72);
      svg += textSvg(bandText, {
        ...bs,
        x: content.x + content.w / 2,
        y: content.y + bandH / 2 + size * 0.36,
        size,
        fill: ink(bandFill),
        anchor: 'middle',
        maxWidth: content.w * 0.92,
      });
      texts.push(bandText);
    }
    c = { x: c.x, y: content.y + bandH + pad * 0.6, w: c.w, h: content.h - bandH - pad * 1.4 };
  }
  const brandInBand = s.band && !header && (s.nameMode === 'brand-line' || s.nameMode === 'brand-upper');

  const unit = rng.chance(s.unitRate)
    ? unitPrice(inp.price, p.entry.sizeValue, p.entry.sizeUnit, inp.currency, s.money, rng)
    : null;
  const wantBarcode = rng.chance(s.barcodeRate);
  const codeText = rng.chance(s.codeRate) ? code(rng, s.codeKind) : null;

  // A barcode too small for the name column may run across the foot of the whole label instead.
  let strip: { m: number; rect: Rect } | null = null;
  if (wantBarcode && s.family !== 'us') {
    const columnW = s.arrangement === 'price-bottom' ? 0 : c.w * 0.5;
    if (barcodeModule(inp, columnW, c.h * 0.35) === null || rng.chance(0.25)) {
      const stripH = c.h * rng.float(0.28, 0.36);
      const m = barcodeModule(inp, c.w * 0.9, stripH);
      if (m !== null) {
        strip = { m, rect: { x: c.x, y: c.y + c.h - stripH, w: c.w, h: stripH } };
        c = { ...c, h: c.h - stripH - Hc * 0.04 };
      }
    }
  }
  let info: Rect;
  let priceArea: Rect;
  let unitBox: Rect | null = null;
  if (s.family === 'us') {
    // Description across the top; unit-price box bottom left; price bottom right.
    const descH = c.h * 0.3;
    info = { x: c.x, y: c.y, w: c.w, h: descH };
    const lower = { x: c.x, y: c.y + descH + pad * 0.3, w: c.w, h: c.h - descH - pad * 0.3 };
    unitBox = unit ? { x: lower.x - pad * 0.5, y: lower.y, w: lower.w * 0.27, h: lower.h + pad * 0.8 } : null;
    priceArea = { x: lower.x + lower.w * 0.55, y: lower.y, w: lower.w * 0.45, h: lower.h };
  } else if (s.arrangement === 'price-right') {
    const split = rng.float(0.48, 0.58);
    info = { x: c.x, y: c.y, w: c.w * split - pad * 0.5, h: c.h };
    priceArea = { x: c.x + c.w * split + pad * 0.5, y: c.y, w: c.w * (1 - split) - pad * 0.5, h: c.h };
  } else if (s.arrangement === 'price-left') {
    const split = rng.float(0.42, 0.52);
    priceArea = { x: c.x, y: c.y, w: c.w * split - pad * 0.5, h: c.h };
    info = { x: c.x + c.w * split + pad * 0.5, y: c.y, w: c.w * (1 - split) - pad * 0.5, h: c.h };
  } else {
    info = { x: c.x, y: c.y, w: c.w, h: c.h * 0.42 };
    priceArea = { x: c.x, y: c.y + c.h * 0.45, w: c.w, h: c.h * 0.55 };
  }

  // Info: name lines, then (below them) the unit price if it lives here, the barcode and the code.
  const lines = nameLines(p, s.nameMode, rng).filter((l, i) => !(brandInBand && i === 0));
  const infoTexts: string[] = [];
  let descCount = 0;
  let infoSvg = '';
  const bottomParts: { h: number; draw: (r: Rect) => void }[] = [];
  const unitHere = unit && (!s.unitInPrice || s.arrangement === 'price-bottom') && s.family !== 'us';
  if (s.family === 'us') {
    // The US description is one line over the whole label; barcode and code go between box and price.
    const mid = { x: c.x + c.w * 0.29, y: c.y + c.h * 0.32, w: c.w * 0.25, h: c.h * 0.62 };
    const lt = drawLines(
      lines.map((l) => ({ ...l, rel: 1 })),
      info,
      s.font,
      sc.fg,
      'start',
    );
    infoSvg += lt.svg;
    infoTexts.push(...lt.texts);
    descCount = lt.texts.length;
    const bcArea = { x: mid.x, y: mid.y + mid.h * 0.05, w: mid.w, h: mid.h * (codeText ? 0.7 : 0.9) };
    const m = wantBarcode ? barcodeModule(inp, bcArea.w, bcArea.h) : null;
    if (m !== null) {
      const bc = drawBarcode(inp, bcArea, m, '#141414', false);
      infoSvg += bc.svg;
      if (bc.text) infoTexts.push(bc.text);
    }
    if (codeText) {
      const size = Math.min(mid.h * 0.2, fitSize(codeText, { font: s.font }, mid.w, mid.h * 0.2));
      infoSvg += textSvg(codeText, { font: s.font, x: mid.x, y: mid.y + mid.h, size, fill: sc.fg });
      infoTexts.push(codeText);
    }
  } else {
    const H2 = info.h;
    if (unitHere && unit) {
      bottomParts.push({
        h: H2 * 0.17,
        draw: (r) => {
          const size = fitSize(unit.text, { font: s.font }, r.w, r.h * 0.85);
          infoSvg += textSvg(unit.text, {
            font: s.font,
            x: s.arrangement === 'price-bottom' ? r.x + r.w / 2 : r.x,
            y: r.y + r.h * 0.5 + size * 0.36,
            size,
            fill: sc.fg,
            anchor: s.arrangement === 'price-bottom' ? 'middle' : 'start',
          });
          infoTexts.push(unit.text);
        },
      });
    }
    const bcH = H2 * rng.float(0.3, 0.4);
    const m = wantBarcode && !strip && s.arrangement !== 'price-bottom' ? barcodeModule(inp, info.w, bcH) : null;
    if (m !== null) {
      bottomParts.push({
        h: bcH,
        draw: (r) => {
          const dark = ink(sc.bg) === '#ffffff';
          const bc = drawBarcode(inp, r, m, '#141414', dark || sc.bg === s.saleBg);
          infoSvg += bc.svg;
          if (bc.text) infoTexts.push(bc.text);
        },
      });
    }
    if (codeText) {
      bottomParts.push({
        h: H2 * 0.12,
        draw: (r) => {
          const cs: FontStyle = { font: rng.chance(0.5) ? 'dejavu-mono' : s.font };
          const size = fitSize(codeText, cs, r.w, r.h * 0.95);
          infoSvg += textSvg(codeText, { ...cs, x: r.x, y: r.y + r.h * 0.85, size, fill: sc.fg, opacity: 0.85 });
          infoTexts.push(codeText);
        },
      });
    }
    const reserved = bottomParts.reduce((sum, b) => sum + b.h + H2 * 0.03, 0);
    const textArea: Rect = { x: info.x, y: info.y, w: info.w, h: Math.max(H2 * 0.3, H2 - reserved) };
    const lt = drawLines(
      lines,
      textArea,
      s.font,
      sc.fg,
      s.arrangement === 'price-bottom' || s.family === 'centre' ? 'middle' : 'start',
    );
    infoSvg += lt.svg;
    infoTexts.push(...lt.texts);
    let y = info.y + textArea.h + H2 * 0.03;
    for (const b of bottomParts) {
      b.draw({ x: info.x, y, w: info.w, h: b.h });
      y += b.h + H2 * 0.03;
    }
  }
  if (unitBox && unit) {
    svg += `<rect x="${f(unitBox.x)}" y="${f(unitBox.y)}" width="${f(unitBox.w)}" height="${f(Math.min(unitBox.h, content.y + content.h - unitBox.y))}" fill="${s.accent}"/>`;
    const uf = ink(s.accent);
    const t1 = 'UNIT PRICE';
    const a1 = fitSize(t1, { font: s.font, bold: true }, unitBox.w * 0.86, unitBox.h * 0.18);
    svg += textSvg(t1, {
      font: s.font,
      bold: true,
      x: unitBox.x + unitBox.w / 2,
      y: unitBox.y + unitBox.h * 0.22,
      size: a1,
      fill: uf,
      anchor: 'middle',
    });
    const a2 = fitSize(unit.value, { font: s.priceFont, bold: true }, unitBox.w * 0.86, unitBox.h * 0.34);
    svg += textSvg(unit.value, {
      font: s.priceFont,
      bold: true,
      x: unitBox.x + unitBox.w / 2,
      y: unitBox.y + unitBox.h * 0.58,
      size: a2,
      fill: uf,
      anchor: 'middle',
    });
    const a3 = fitSize(unit.per, { font: s.font }, unitBox.w * 0.86, unitBox.h * 0.18);
    svg += textSvg(unit.per, {
      font: s.font,
      x: unitBox.x + unitBox.w / 2,
      y: unitBox.y + unitBox.h * 0.84,
      size: a3,
      fill: uf,
      anchor: 'middle',
    });
  }

  const priceUnit = unit && !unitHere && s.family !== 'us' ? unit : null;
  const pb = drawPrice(
    inp,
    sc,
    priceArea,
    priceUnit,
    s.arrangement === 'price-bottom' ? 'middle' : s.arrangement === 'price-left' ? 'middle' : 'end',
  );
  svg += infoSvg + pb.svg;
  let stripText = '';
  if (strip) {
    const dark = ink(sc.bg) === '#ffffff';
    const bc = drawBarcode(inp, strip.rect, strip.m, '#141414', dark || sc.bg === s.saleBg);
    svg += bc.svg;
    stripText = bc.text;
  }

  // Reading order: header/band, then the left column (or the top block) before the right (or lower) one.
  const unitTexts = unitBox && unit ? [`UNIT PRICE ${unit.value} ${unit.per}`] : [];
  if (s.family === 'us')
    texts.push(...infoTexts.slice(0, descCount), ...unitTexts, ...infoTexts.slice(descCount), ...pb.texts);
  else if (s.arrangement === 'price-left') texts.push(...pb.texts, ...infoTexts);
  else texts.push(...infoTexts, ...pb.texts);
  texts.push(stripText);
  return { svg, text: texts.filter(Boolean).join(' '), priceRect: priceArea };
}

function offerHeader(inp: LabelInput): string | null {
  const { offer, rng, style: s, currency: c, price } = inp;
  if (!offer || rng.chance(0.35)) return null;
  switch (offer.kind) {
    case 'multibuy':
      return rng.pick(['MULTIBUY', 'SPECIAL OFFER', 'MIX & MATCH', 'DEAL']);
    case 'three-for-two':
      return rng.pick(['SPECIAL OFFER', 'MIX & MATCH']);
    case 'was-now':
      if (offer.half) return 'HALF PRICE';
      return rng.pick([
        'SALE',
        'PRICE DROP',
        'SPECIAL OFFER',
        `SAVE ${fmt(price - offer.now, c, { ...s.money, smallUnit: true })}`,
      ]);
    case 'club':
      return s.family === 'esl' ? null : rng.chance(0.5) ? `${offer.title.toUpperCase()} DEAL` : null;
  }
}
