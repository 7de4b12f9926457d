// Shelf labels, designed from what real shelf edges carry: plain white strip tickets, yellow and red
// promotion tickets, dark "premium" tickets, punched peg-hook tags, big-price discounter tickets,
// continental tickets with the barcode beside the price, cream serif deli tickets and electronic
// (e-paper) labels. Each layout measures its text and grows to fit rather than shrinking text below
// what a reader can still read (name >= 15 px, price >= 26 px font size before the camera).
import { type Product } from './catalogue.js';
import { type BarcodeSpec, barcodeSize, renderBarcode } from './barcodes.js';
import { type PriceStyle, type ShelfPrice, eachText, headline, money, unitPriceText, wasText } from './prices.js';
import { type Rng } from './random.js';
import { CAP_HEIGHT, FONTS, type Font, fitText, svgText, textWidth } from './text.js';
import sharp, { type OverlayOptions } from 'sharp';

export const LABEL_STYLES = [
  'shelf-white',
  'promo-yellow',
  'promo-red',
  'dark',
  'peg-tag',
  'big-price',
  'barcode-side',
  'serif-caps',
  'esl',
] as const;
export type LabelStyle = (typeof LABEL_STYLES)[number];

/** Styles that can print a promotion; the others are only used for regular prices. */
export const PROMO_STYLES: readonly LabelStyle[] = ['promo-yellow', 'promo-red', 'dark', 'peg-tag', 'esl'];

export type Rect = { x0: number; y0: number; x1: number; y1: number };

/** A store's look, shared by the labels of one photo. */
export type Theme = {
  accent: string;
  nameFont: Font;
  priceFont: Font;
  /** Pence / cents printed smaller and raised (only on big prices). */
  splitDecimals: boolean;
  /** House labels print product names in capitals. */
  capsNames: boolean;
  paper: string;
  dark: { bg: string; price: string };
  pegPaper: string;
  eslHousing: string;
};

export type LabelInput = {
  product: Product;
  price: ShelfPrice;
  priceStyle: PriceStyle;
  /** Pixels per label point: the label's scale in the flat scene. */
  u: number;
  theme: Theme;
  rng: Rng;
};

export type LabelArt = {
  style: LabelStyle;
  width: number;
  height: number;
  svg: string;
  barcode: { spec: BarcodeSpec; x: number; y: number } | null;
  /** Price areas (label coordinates): occluders never touch these. */
  protect: Rect[];
  /** Everything printed, in reading order (barcode digits left out). */
  text: string;
  /** Peg tags: the punched hole the hook goes through. */
  hole: { cx: number; cy: number; r: number } | null;
};

export const NAME_MIN = 15;
export const PRICE_MIN = 26;
const SMALL_MIN = 10;

const px = (u: number, pt: number, min: number) => Math.max(min, pt * u);

/** Collects one label's SVG parts, its protected price boxes and its printed text. */
class Sheet {
  parts: string[] = [];
  protect: Rect[] = [];
  text: string[] = [];

  add(svg: string) {
    this.parts.push(svg);
  }

  rect(x: number, y: number, w: number, h: number, fill: string, extra = '') {
    this.parts.push(
      `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}" fill="${fill}" ${extra}/>`,
    );
  }

  /** A line of text; `record` adds it to the label's text. */
  line(
    text: string,
    x: number,
    baseline: number,
    font: Font,
    size: number,
    fill: string,
    anchor: 'start' | 'middle' | 'end' = 'start',
    record = true,
    letterSpacing = 0,
  ) {
    this.parts.push(svgText({ x, y: baseline, text, font, size, fill, anchor, letterSpacing }));
    if (record) this.text.push(text);
  }

  /**
   * A price; with `split`, the decimals are printed smaller and raised ("£1" + ".29"), as many
   * shops do, but never below the price minimum. Returns the width it took.
   */
  price(
    text: string,
    x: number,
    baseline: number,
    font: Font,
    size: number,
    fill: string,
    anchor: 'start' | 'middle' | 'end',
    split: boolean,
  ): number {
    this.text.push(text);
    const m = split && size >= 40 ? /^(\D*\d+[.,])(\d\d)(\D*)$/.exec(text) : null;
    let width: number;
    if (!m) {
      width = textWidth(text, font, size);
      this.parts.push(svgText({ x, y: baseline, text, font, size, fill, anchor }));
    } else {
      const small = Math.max(PRICE_MIN, size * 0.58);
      const [, big, decimals, suffix] = m;
      const wBig = textWidth(big, font, size);
      const wDec = textWidth(decimals, font, small);
      const wSuf = suffix ? textWidth(suffix, font, small) : 0;
      width = wBig + wDec + wSuf;
      const x0 = anchor === 'start' ? x : anchor === 'middle' ? x - width / 2 : x - width;
      this.parts.push(svgText({ x: x0, y: baseline, text: big, font, size, fill }));
      // Decimals top-aligned with the big digits; a currency suffix follows on the baseline.
      const decBase = baseline - CAP_HEIGHT * size + CAP_HEIGHT * small;
      this.parts.push(svgText({ x: x0 + wBig, y: decBase, text: decimals, font, size: small, fill }));
      if (suffix) this.parts.push(svgText({ x: x0 + wBig + wDec, y: baseline, text: suffix, font, size: small, fill }));
    }
    const x0 = anchor === 'start' ? x : anchor === 'middle' ? x - width / 2 : x - width;
    // A margin around the price, so an occluder never even touches it.
    const margin = Math.max(4, size * 0.15);
    this.protect.push({
      x0: x0 - margin,
      y0: baseline - CAP_HEIGHT * size - margin,
      x1: x0 + width + margin,
      y1: baseline + 0.22 * size,
    });
    return width;
  }
}

/**
 * Pixels per module, 1-3: roughly in proportion to the label's scale (a barcode is about half a
 * ticket wide), so small labels mostly get 1-2 px modules; now and then a big barcode (the label
 * widens to hold it).
 */
function pickModule(u: number, rng: Rng): number {
  const m = Math.round(u * rng.float(0.7, 1.9)) + (rng.chance(0.12) ? 1 : 0);
  return Math.max(1, Math.min(3, m));
}

async function barcodeFor(
  input: LabelInput,
  background: string,
  digits = true,
  heightPt = 22,
): Promise<{ spec: BarcodeSpec; width: number; height: number }> {
  const module = pickModule(input.u, input.rng);
  const barHeight = Math.round(Math.max(14, 9 * module, heightPt * input.u * input.rng.float(0.85, 1.15)));
  const spec: BarcodeSpec = { upc: input.product.upc, module, barHeight, digits, background };
  const size = await barcodeSize(spec);
  return { spec, ...size };
}

const fullName = (p: Product) => `${p.brand} ${p.name}`;

function finish(
  style: LabelStyle,
  sheet: Sheet,
  w: number,
  h: number,
  barcode: LabelArt['barcode'],
  shape: string,
  hole: LabelArt['hole'] = null,
): LabelArt {
  const width = Math.ceil(w);
  const height = Math.ceil(h);
  // The hole is cut out with a mask so the scene behind shows through it.
  const mask = hole
    ? `<defs><mask id="m"><rect width="${width}" height="${height}" fill="white"/><circle cx="${hole.cx}" cy="${hole.cy}" r="${hole.r}" fill="black"/></mask></defs>`
    : '';
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${mask}` +
    `<g${hole ? ' mask="url(#m)"' : ''}>${shape}${sheet.parts.join('')}</g></svg>`;
  return { style, width, height, svg, barcode, protect: sheet.protect, text: sheet.text.join(' '), hole };
}

// --- The styles --------------------------------------------------------------------------------

/** UK supermarket strip ticket: store-colour top rule, name top left, barcode under it, price right. */
async function shelfWhite(input: LabelInput): Promise<LabelArt> {
  const { product: p, price, priceStyle: ps, u, theme } = input;
  const s = new Sheet();
  const pad = 6 * u;
  const rule = Math.max(3, 5 * u);
  const priceSize = px(u, 38, PRICE_MIN + 4);
  const priceText = money(price.regular, ps);
  const priceW = textWidth(priceText, theme.priceFont, priceSize) * (theme.splitDecimals ? 0.85 : 1);
  const bc = await barcodeFor(input, 'ffffff');
  const nameText = theme.capsNames ? fullName(p).toUpperCase() : fullName(p);
  const colTarget = Math.max(bc.width, 235 * u - priceW - 3 * pad);
  const name = fitText(nameText, theme.nameFont, px(u, 16, NAME_MIN), NAME_MIN, colTarget, 2);
  const col = Math.max(colTarget, name.width);
  const smallSize = px(u, 10, SMALL_MIN);
  const w = pad + col + 2 * pad + priceW + pad;
  const leftH = rule + pad + name.lines.length * name.size * 1.2 + 3 * u + bc.height + pad * 0.6;
  const rightH = rule + pad + priceSize * 1.05 + smallSize * 1.6 + pad;
  const h = Math.max(leftH, rightH);
  s.rect(0, 0, w, rule, theme.accent);
  let y = rule + pad * 0.8;
  for (const l of name.lines) {
    y += name.size * 1.05;
    s.line(l, pad, y, theme.nameFont, name.size, '#111111');
    y += name.size * 0.15;
  }
  const priceBase = h - pad - smallSize * 1.5;
  s.price(priceText, w - pad, priceBase, theme.priceFont, priceSize, '#111111', 'end', theme.splitDecimals);
  s.line(unitPriceText(p, price.regular, ps), w - pad, h - pad * 0.8, FONTS.sans, smallSize, '#444444', 'end');
  const barcode = { spec: bc.spec, x: Math.round(pad), y: Math.round(h - pad * 0.4 - bc.height) };
  return finish('shelf-white', s, w, h, barcode, `<rect width="100%" height="100%" fill="${theme.paper}"/>`);
}

/** Yellow promotion ticket: red header, name in capitals, the offer big in red, regular price below. */
async function promoYellow(input: LabelInput): Promise<LabelArt> {
  const { product: p, price, priceStyle: ps, u, rng } = input;
  const s = new Sheet();
  const pad = 6 * u;
  const yellow = rng.pick(['#ffd500', '#ffe14a', '#fff04d', '#ffdb1f']);
  const headerH = px(u, 19, 17);
  const headerSize = px(u, 12, 12);
  const header =
    price.promo.kind === 'multi'
      ? 'MULTIBUY'
      : price.promo.kind === 'wasNow'
        ? rng.pick(['PRICE DROP', 'SPECIAL OFFER'])
        : 'LOW PRICE';
  const bigSize = px(u, 34, PRICE_MIN + 4);
  const big = headline(price, ps);
  const bigW = textWidth(big, FONTS.sansBold, bigSize);
  const second =
    price.promo.kind === 'wasNow' ? wasText(price, ps) : price.promo.kind === 'multi' ? eachText(price, ps) : '';
  const secondSize = px(u, 16, 18);
  const secondW = second ? textWidth(second, FONTS.sansBold, secondSize) : 0;
  const bc = await barcodeFor(input, yellow.slice(1), true, 18);
  const target = Math.max(230 * u, bigW + 2 * pad, secondW + bc.width + 3 * pad);
  const name = fitText(
    fullName(p).toUpperCase(),
    FONTS.sansCondBold,
    px(u, 15, NAME_MIN),
    NAME_MIN,
    target - 2 * pad,
    2,
  );
  const w = Math.max(target, name.width + 2 * pad);
  const h =
    headerH +
    pad * 0.6 +
    name.lines.length * name.size * 1.15 +
    bigSize * 1.05 +
    Math.max(bc.height, secondSize * 1.3) +
    pad;
  s.rect(0, 0, w, headerH, '#d50000');
  s.line(
    header,
    w / 2,
    headerH / 2 + headerSize * 0.36,
    FONTS.sansBold,
    headerSize,
    '#ffffff',
    'middle',
    true,
    1.2 * u,
  );
  let y = headerH + pad * 0.5;
  for (const l of name.lines) {
    y += name.size * 1.05;
    s.line(l, pad, y, FONTS.sansCondBold, name.size, '#111111');
    y += name.size * 0.1;
  }
  y += bigSize * 0.95;
  s.price(big, pad, y, FONTS.sansBold, bigSize, '#d50000', 'start', false);
  const bottom = h - pad * 0.5;
  if (second)
    s.price(
      second,
      pad,
      bottom - (bc.height - secondSize * CAP_HEIGHT) / 2,
      FONTS.sansBold,
      secondSize,
      '#111111',
      'start',
      false,
    );
  else s.line(unitPriceText(p, price.regular, ps), pad, bottom - pad, FONTS.sans, px(u, 10, SMALL_MIN), '#333333');
  const barcode = { spec: bc.spec, x: Math.round(w - pad * 0.6 - bc.width), y: Math.round(bottom - bc.height) };
  return finish('promo-yellow', s, w, h, barcode, `<rect width="100%" height="100%" rx="${2 * u}" fill="${yellow}"/>`);
}

/** Red offer ticket: white header with the saving, white text on red, barcode in a white window. */
async function promoRed(input: LabelInput): Promise<LabelArt> {
  const { product: p, price, priceStyle: ps, u, rng } = input;
  const s = new Sheet();
  const pad = 6 * u;
  const red = rng.pick(['#e30613', '#c8102e', '#d62828']);
  const headerH = px(u, 18, 17);
  const headerSize = px(u, 12, 12);
  const header =
    price.promo.kind === 'wasNow'
      ? `SAVE ${Math.round((1 - price.promo.now / price.regular) * 100)}%`
      : price.promo.kind === 'multi'
        ? 'MIX & MATCH'
        : 'HOT PRICE';
  const bigSize = px(u, 36, PRICE_MIN + 6);
  const big = headline(price, ps);
  const bigW = textWidth(big, FONTS.sansCondBold, bigSize);
  const bc = await barcodeFor(input, 'ffffff', rng.chance(0.6), 18);
  const second =
    price.promo.kind === 'wasNow' ? wasText(price, ps) : price.promo.kind === 'multi' ? eachText(price, ps) : '';
  const secondSize = px(u, 15, 17);
  const target = Math.max(230 * u, bigW + bc.width + 4 * pad);
  const nameFont = input.theme.nameFont.weight === 'bold' ? input.theme.nameFont : FONTS.sansBold;
  const name = fitText(fullName(p), nameFont, px(u, 15, NAME_MIN), NAME_MIN, target - 2 * pad, 2);
  const w = Math.max(target, name.width + 2 * pad);
  const rowH = Math.max(bigSize * 1.1, bc.height + 2 * u);
  const h =
    headerH + pad * 0.5 + name.lines.length * name.size * 1.15 + rowH + (second ? secondSize * 1.4 : 0) + pad * 0.8;
  s.rect(0, 0, w, headerH, '#ffffff');
  s.line(header, pad, headerH / 2 + headerSize * 0.36, FONTS.sansBold, headerSize, red, 'start', true, 0.8 * u);
  let y = headerH + pad * 0.4;
  for (const l of name.lines) {
    y += name.size * 1.05;
    s.line(l, pad, y, nameFont, name.size, '#ffffff');
    y += name.size * 0.1;
  }
  const rowTop = y + 2 * u;
  s.price(
    big,
    pad,
    rowTop + rowH / 2 + (bigSize * CAP_HEIGHT) / 2,
    FONTS.sansCondBold,
    bigSize,
    '#ffffff',
    'start',
    false,
  );
  s.rect(w - pad - bc.width - 2 * u, rowTop, bc.width + 4 * u, bc.height + 2 * u, '#ffffff', `rx="${u}"`);
  const barcode = { spec: bc.spec, x: Math.round(w - pad - bc.width), y: Math.round(rowTop + u) };
  if (second) s.price(second, pad, h - pad * 0.9, FONTS.sansBold, secondSize, '#ffffff', 'start', false);
  return finish('promo-red', s, w, h, barcode, `<rect width="100%" height="100%" fill="${red}"/>`);
}

/** Dark premium ticket: light text on charcoal / navy / green, price in yellow or white. */
async function dark(input: LabelInput): Promise<LabelArt> {
  const { product: p, price, priceStyle: ps, u, theme, rng } = input;
  const s = new Sheet();
  const pad = 7 * u;
  const brandSize = px(u, 12, 14);
  const bigSize = px(u, 36, PRICE_MIN + 4);
  const big = headline(price, ps);
  const promo = price.promo.kind !== 'none';
  const bigW = textWidth(big, theme.priceFont, bigSize);
  const bc = await barcodeFor(input, 'ffffff', rng.chance(0.5), 20);
  const nameText = theme.capsNames ? p.name.toUpperCase() : p.name;
  const target = Math.max(230 * u, bigW + bc.width + 5 * pad);
  const name = fitText(nameText, theme.nameFont, px(u, 17, NAME_MIN), NAME_MIN, target - 2 * pad, 2);
  const w = Math.max(target, name.width + 2 * pad);
  const second =
    price.promo.kind === 'wasNow' ? wasText(price, ps) : price.promo.kind === 'multi' ? eachText(price, ps) : '';
  const secondSize = px(u, 14, 16);
  const rowH = Math.max(bigSize * 1.05 + (second ? secondSize * 1.3 : 0), bc.height + 4 * u);
  const h = pad * 0.8 + brandSize * 1.3 + name.lines.length * name.size * 1.15 + rowH + pad * 0.8;
  let y = pad * 0.6 + brandSize;
  s.line(p.brand.toUpperCase(), pad, y, FONTS.sansBold, brandSize, '#b8b8b8', 'start', true, 1.5 * u);
  y += brandSize * 0.3;
  for (const l of name.lines) {
    y += name.size * 1.05;
    s.line(l, pad, y, theme.nameFont, name.size, '#ffffff');
    y += name.size * 0.1;
  }
  const bottom = h - pad * 0.7;
  if (second) s.price(second, pad, bottom - bigSize * 1.05, FONTS.sans, secondSize, '#e6e6e6', 'start', false);
  s.price(
    big,
    pad,
    bottom,
    theme.priceFont,
    bigSize,
    promo ? '#ffd60a' : theme.dark.price,
    'start',
    theme.splitDecimals && !promo,
  );
  s.rect(
    w - pad - bc.width - 2 * u,
    bottom - bc.height - 2 * u,
    bc.width + 4 * u,
    bc.height + 4 * u,
    '#ffffff',
    `rx="${1.5 * u}"`,
  );
  const barcode = { spec: bc.spec, x: Math.round(w - pad - bc.width), y: Math.round(bottom - bc.height) };
  return finish('dark', s, w, h, barcode, `<rect width="100%" height="100%" rx="${2 * u}" fill="${theme.dark.bg}"/>`);
}

/** Punched tag for peg hooks: hole at the top, centred capitals name, price, barcode at the foot. */
async function pegTag(input: LabelInput): Promise<LabelArt> {
  const { product: p, price, priceStyle: ps, u, theme, rng } = input;
  const s = new Sheet();
  const pad = 6 * u;
  const promo = price.promo.kind !== 'none';
  const paper = promo ? '#ffe14a' : theme.pegPaper;
  const holeR = Math.max(4, 5 * u);
  const top = holeR * 2 + 5 * u;
  const bigSize = px(u, 30, PRICE_MIN + 2);
  const big = headline(price, ps);
  const bigW = textWidth(big, FONTS.sansBold, bigSize);
  const bc = await barcodeFor(input, paper.slice(1), true, 16);
  const target = Math.max(125 * u, bigW + 2 * pad, bc.width + 2 * pad);
  const brandSize = px(u, 11, 14);
  const name = fitText(p.name.toUpperCase(), FONTS.sansCondBold, px(u, 14, NAME_MIN), NAME_MIN, target - 2 * pad, 3);
  const w = Math.max(target, name.width + 2 * pad);
  const second =
    price.promo.kind === 'wasNow' ? wasText(price, ps) : price.promo.kind === 'multi' ? eachText(price, ps) : '';
  const secondSize = px(u, 13, 16);
  const h =
    top +
    brandSize * 1.3 +
    name.lines.length * name.size * 1.12 +
    bigSize * 1.15 +
    (second ? secondSize * 1.3 : 0) +
    bc.height +
    pad;
  const cx = w / 2;
  let y = top + brandSize;
  s.line(p.brand.toUpperCase(), cx, y, FONTS.sans, brandSize, '#555555', 'middle', true, 0.8 * u);
  y += brandSize * 0.3;
  for (const l of name.lines) {
    y += name.size * 1.02;
    s.line(l, cx, y, FONTS.sansCondBold, name.size, '#111111', 'middle');
    y += name.size * 0.1;
  }
  y += bigSize * 1.02;
  s.price(big, cx, y, FONTS.sansBold, bigSize, promo ? '#c00000' : '#111111', 'middle', false);
  if (second) {
    y += secondSize * 1.25;
    s.price(second, cx, y, FONTS.sansBold, secondSize, '#222222', 'middle', false);
  }
  const barcode = { spec: bc.spec, x: Math.round(cx - bc.width / 2), y: Math.round(h - pad * 0.6 - bc.height) };
  const edge = rng.pick(['#bbbbbb', theme.accent]);
  const shape =
    `<rect x="0.5" y="0.5" width="${w - 1}" height="${h - 1}" rx="${6 * u}" fill="${paper}" stroke="${edge}" stroke-width="${Math.max(1, u)}"/>` +
    `<rect x="${u}" y="${top - 3 * u}" width="${w - 2 * u}" height="${Math.max(2, 2 * u)}" fill="${theme.accent}"/>`;
  return finish('peg-tag', s, w, h, barcode, shape, { cx: w / 2, cy: holeR + 3 * u, r: holeR });
}

/** Discounter ticket: small name line, a huge price, a small barcode (sometimes none). */
async function bigPrice(input: LabelInput): Promise<LabelArt> {
  const { product: p, price, priceStyle: ps, u, theme, rng } = input;
  const s = new Sheet();
  const pad = 5 * u;
  const bigSize = px(u, 56, 40);
  const priceText = money(price.regular, ps);
  const font = rng.pick([FONTS.sansCondBold, FONTS.sansBold, theme.priceFont]);
  const bigW = textWidth(priceText, font, bigSize) * (theme.splitDecimals ? 0.8 : 1);
  const withBarcode = rng.chance(0.65);
  const bc = withBarcode ? await barcodeFor(input, 'ffffff', false, 14) : null;
  const smallSize = px(u, 10, SMALL_MIN);
  const unit = unitPriceText(p, price.regular, ps);
  const target = Math.max(200 * u, bigW + 2 * pad, (bc?.width ?? 0) + textWidth(unit, FONTS.sans, smallSize) + 4 * pad);
  const nameText = theme.capsNames ? fullName(p).toUpperCase() : fullName(p);
  const name = fitText(nameText, theme.nameFont, NAME_MIN + 1, NAME_MIN, target - 2 * pad, 2);
  const w = Math.max(target, name.width + 2 * pad);
  const footH = Math.max(bc?.height ?? 0, smallSize * 1.4);
  const h = pad * 0.6 + name.lines.length * name.size * 1.15 + bigSize * 1.02 + footH + pad * 0.6;
  let y = pad * 0.4;
  for (const l of name.lines) {
    y += name.size * 1.05;
    s.line(l, pad, y, theme.nameFont, name.size, '#1a1a1a');
    y += name.size * 0.1;
  }
  y += bigSize * CAP_HEIGHT + bigSize * 0.16;
  s.price(priceText, w / 2, y, font, bigSize, '#000000', 'middle', theme.splitDecimals);
  s.line(unit, w - pad, h - pad * 0.6, FONTS.sans, smallSize, '#444444', 'end');
  const barcode = bc ? { spec: bc.spec, x: Math.round(pad * 0.6), y: Math.round(h - pad * 0.3 - bc.height) } : null;
  const border = rng.pick(['#9e9e9e', theme.accent]);
  const shape = `<rect x="0.5" y="0.5" width="${w - 1}" height="${h - 1}" fill="${rng.pick(['#ffffff', '#f6f6f2'])}" stroke="${border}" stroke-width="${Math.max(1, u * 1.2)}"/>`;
  return finish('big-price', s, w, h, barcode, shape);
}

/** Continental ticket: name across the top, barcode on the left beside the price on the right. */
async function barcodeSide(input: LabelInput): Promise<LabelArt> {
  const { product: p, price, priceStyle: ps, u, theme } = input;
  const s = new Sheet();
  const pad = 6 * u;
  const stripe = Math.max(3, 6 * u);
  const priceSize = px(u, 38, PRICE_MIN + 4);
  const priceText = money(price.regular, ps);
  const priceW = textWidth(priceText, theme.priceFont, priceSize);
  const bc = await barcodeFor(input, 'ffffff', true, 24);
  const target = Math.max(245 * u, stripe + pad + bc.width + 2 * pad + priceW + pad);
  const brandFont = FONTS.sansBold;
  const nameSize = px(u, 15, NAME_MIN);
  const oneLine = `${p.brand} ${p.name}`;
  const name = fitText(oneLine, theme.nameFont, nameSize, NAME_MIN, target - stripe - 2 * pad, 2);
  const w = Math.max(target, name.width + stripe + 2 * pad);
  const smallSize = px(u, 10, SMALL_MIN);
  const rowH = Math.max(bc.height, priceSize * 1.05 + smallSize * 1.4);
  const h = pad * 0.7 + name.lines.length * name.size * 1.15 + 3 * u + rowH + pad * 0.6;
  s.rect(0, 0, stripe, h, theme.accent);
  let y = pad * 0.5;
  name.lines.forEach((l, i) => {
    y += name.size * 1.05;
    // The brand in bold where it starts the first line.
    if (i === 0 && l.startsWith(p.brand)) {
      s.line(p.brand, stripe + pad, y, brandFont, name.size, '#111111', 'start', false);
      const rest = l.slice(p.brand.length);
      const bw = textWidth(p.brand, brandFont, name.size);
      s.line(rest, stripe + pad + bw, y, theme.nameFont, name.size, '#111111', 'start', false);
    } else s.line(l, stripe + pad, y, theme.nameFont, name.size, '#111111', 'start', false);
    s.text.push(l);
    y += name.size * 0.1;
  });
  const rowTop = y + 3 * u;
  const barcode = { spec: bc.spec, x: Math.round(stripe + pad * 0.5), y: Math.round(rowTop + (rowH - bc.height) / 2) };
  const priceBase = rowTop + priceSize * CAP_HEIGHT + priceSize * 0.12;
  s.price(priceText, w - pad, priceBase, theme.priceFont, priceSize, '#111111', 'end', theme.splitDecimals);
  s.line(
    unitPriceText(p, price.regular, ps),
    w - pad,
    priceBase + smallSize * 1.5,
    FONTS.sans,
    smallSize,
    '#444444',
    'end',
  );
  return finish('barcode-side', s, w, h, barcode, `<rect width="100%" height="100%" fill="${theme.paper}"/>`);
}

/** Cream deli ticket: double rule border, serif capitals, centred serif price. */
async function serifCaps(input: LabelInput): Promise<LabelArt> {
  const { product: p, price, priceStyle: ps, u, rng } = input;
  const s = new Sheet();
  const pad = 8 * u;
  const ink = rng.pick(['#5a1a1a', '#1f3d2b', '#1b2a4a']);
  const brandSize = px(u, 13, 14);
  const priceSize = px(u, 34, PRICE_MIN + 4);
  const priceText = money(price.regular, ps);
  const bc = await barcodeFor(input, 'fff8e7', true, 16);
  const target = Math.max(220 * u, bc.width + 2 * pad, textWidth(priceText, FONTS.serifBold, priceSize) + 2 * pad);
  const name = fitText(p.name.toUpperCase(), FONTS.serifBold, px(u, 15, NAME_MIN), NAME_MIN, target - 2 * pad, 2);
  const w = Math.max(target, name.width + 2 * pad);
  const h =
    pad * 0.9 + brandSize * 1.25 + name.lines.length * name.size * 1.15 + priceSize * 1.1 + bc.height + pad * 0.7;
  const cx = w / 2;
  let y = pad * 0.7 + brandSize;
  s.line(p.brand, cx, y, FONTS.serifItalic, brandSize, ink, 'middle');
  y += brandSize * 0.2;
  for (const l of name.lines) {
    y += name.size * 1.05;
    s.line(l, cx, y, FONTS.serifBold, name.size, ink, 'middle');
    y += name.size * 0.1;
  }
  y += priceSize * 1.0;
  s.price(priceText, cx, y, FONTS.serifBold, priceSize, '#111111', 'middle', false);
  const barcode = { spec: bc.spec, x: Math.round(cx - bc.width / 2), y: Math.round(h - pad * 0.55 - bc.height) };
  const b1 = Math.max(1, 1.6 * u);
  const shape =
    `<rect width="100%" height="100%" fill="#fff8e7"/>` +
    `<rect x="${b1}" y="${b1}" width="${w - 2 * b1}" height="${h - 2 * b1}" fill="none" stroke="${ink}" stroke-width="${b1}"/>` +
    `<rect x="${3.2 * b1}" y="${3.2 * b1}" width="${w - 6.4 * b1}" height="${h - 6.4 * b1}" fill="none" stroke="${ink}" stroke-width="${Math.max(0.8, b1 / 2)}"/>`;
  return finish('serif-caps', s, w, h, barcode, shape);
}

/** Electronic shelf label: plastic housing around a grey e-paper screen; promotions in red. */
async function esl(input: LabelInput): Promise<LabelArt> {
  const { product: p, price, priceStyle: ps, u, theme, rng } = input;
  const s = new Sheet();
  const frame = Math.max(4, 6 * u);
  const pad = 5 * u;
  const screen = '#e4e4de';
  const promo = price.promo.kind !== 'none';
  const bigSize = px(u, 32, PRICE_MIN + 2);
  const big = headline(price, ps);
  const bigW = textWidth(big, FONTS.sansBold, bigSize);
  const bc = await barcodeFor(input, screen.slice(1), rng.chance(0.5), 16);
  const second =
    price.promo.kind === 'wasNow' ? wasText(price, ps) : price.promo.kind === 'multi' ? eachText(price, ps) : '';
  const secondSize = px(u, 13, 16);
  const target = Math.max(220 * u, 2 * frame + 3 * pad + bc.width + bigW);
  const nameFont = rng.pick([FONTS.sansBold, FONTS.monoBold, FONTS.sansCondBold]);
  const name = fitText(fullName(p), nameFont, px(u, 14, NAME_MIN), NAME_MIN, target - 2 * frame - 2 * pad, 2);
  const w = Math.max(target, name.width + 2 * frame + 2 * pad);
  const rowH = Math.max(bc.height, bigSize * 1.05 + (second ? secondSize * 1.3 : 0));
  const h = 2 * frame + pad * 0.6 + name.lines.length * name.size * 1.15 + rowH + pad * 0.8;
  let y = frame + pad * 0.4;
  for (const l of name.lines) {
    y += name.size * 1.05;
    s.line(l, frame + pad, y, nameFont, name.size, '#111111');
    y += name.size * 0.1;
  }
  const bottom = h - frame - pad * 0.5;
  if (second)
    s.price(second, w - frame - pad, bottom - bigSize * 1.05, FONTS.sans, secondSize, '#111111', 'end', false);
  s.price(big, w - frame - pad, bottom, FONTS.sansBold, bigSize, promo ? '#c81d25' : '#111111', 'end', false);
  const barcode = { spec: bc.spec, x: Math.round(frame + pad * 0.6), y: Math.round(bottom - bc.height) };
  const shape =
    `<rect width="100%" height="100%" rx="${4 * u}" fill="${theme.eslHousing}"/>` +
    `<rect x="${frame}" y="${frame}" width="${w - 2 * frame}" height="${h - 2 * frame}" rx="${u}" fill="${screen}"/>`;
  return finish('esl', s, w, h, barcode, shape);
}

const LAYOUTS: Record<LabelStyle, (input: LabelInput) => Promise<LabelArt>> = {
  'shelf-white': shelfWhite,
  'promo-yellow': promoYellow,
  'promo-red': promoRed,
  dark,
  'peg-tag': pegTag,
  'big-price': bigPrice,
  'barcode-side': barcodeSide,
  'serif-caps': serifCaps,
  esl,
};

export function layoutLabel(style: LabelStyle, input: LabelInput): Promise<LabelArt> {
  return LAYOUTS[style](input);
}

/** The label as an RGBA PNG (transparent outside its shape and in a peg tag's hole). */
export async function renderLabel(art: LabelArt): Promise<Buffer> {
  const layers: OverlayOptions[] = [];
  if (art.barcode) {
    const image = await renderBarcode(art.barcode.spec);
    layers.push({ input: image.png, left: art.barcode.x, top: art.barcode.y });
  }
  return sharp(Buffer.from(art.svg)).composite(layers).png().toBuffer();
}

export function randomTheme(rng: Rng): Theme {
  const fontSets: [Font, Font][] = [
    [FONTS.sans, FONTS.sansBold],
    [FONTS.sansCond, FONTS.sansCondBold],
    [FONTS.sansBold, FONTS.sansCondBold],
    [FONTS.serif, FONTS.serifBold],
    [FONTS.sansCond, FONTS.serifCondBold],
    [FONTS.mono, FONTS.sansBold],
    [FONTS.sans, FONTS.monoBold],
  ];
  const [nameFont, priceFont] = rng.pick(fontSets);
  return {
    accent: rng.pick(['#00539f', '#e4002b', '#00843d', '#f58220', '#6d2077', '#00a9e0', '#222222', '#ffcc00']),
    nameFont,
    priceFont,
    splitDecimals: rng.chance(0.35),
    capsNames: rng.chance(0.3),
    paper: rng.pick(['#ffffff', '#ffffff', '#fbfbf5', '#f3f6fb']),
    dark: rng.pick([
      { bg: '#1e1e1e', price: '#ffffff' },
      { bg: '#14213d', price: '#ffd60a' },
      { bg: '#1b4332', price: '#ffffff' },
      { bg: '#3b0d11', price: '#f5e6c8' },
    ]),
    pegPaper: rng.pick(['#ffffff', '#eef6ff', '#f0fff0', '#fff7e8']),
    eslHousing: rng.pick(['#2b2b2b', '#f2f2f2', '#d9d9d9', '#1f3a5f']),
  };
}
