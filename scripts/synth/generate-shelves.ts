// Renders synthetic shelf photos with ground truth, for measuring recognizers.
// Usage: npm run synth -- --out test/fixtures/synthetic-shelves --count 12 --seed 42 [--width 1600 --height 1200] [--palette classic|mixed]
// Each image: shelf rows of product packs (brand and name printed on them), a price label under each
// product group (name, price or a promotion, an EAN-13), then blur, noise, a slight rotation and JPEG.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import bwipjs from 'bwip-js';
import sharp from 'sharp';

type Item = {
  sku: string;
  upc: string;
  brand: string;
  name: string;
  category: string;
  sizeValue: number;
  sizeUnit: string;
  expectedPrice: number;
  currency: 'GBP';
};
type Box = [number, number, number, number];
type TruthProduct = {
  sku: string;
  upc: string;
  brand: string;
  name: string;
  units: number;
  price: number;
  discountedPrice: number | null;
  onSale: boolean;
  currency: 'GBP';
  shelfPosition: 'top' | 'eye-level' | 'middle' | 'bottom';
  shelfSection: 'left' | 'center' | 'right';
  bbox: Box;
  label: { bbox: Box; text: string; occluded: boolean };
};

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
  };
}

export function ean13(base12: string): string {
  const sum = [...base12].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
  return base12 + String((10 - (sum % 10)) % 10);
}

const BRANDS = [
  'Brightwell',
  'Nordic Dairy',
  'Crispin',
  'Sunvale',
  'Oakridge',
  'Bluefin',
  'Harvest Moon',
  'Polar Peak',
  'Golden Crust',
  'Riverbend',
];
const PRODUCTS: [string, string, number, string][] = [
  ['Orange Juice', 'Juice', 1, 'L'],
  ['Apple Juice', 'Juice', 1, 'L'],
  ['Whole Milk', 'Dairy', 2, 'L'],
  ['Greek Yogurt', 'Dairy', 500, 'g'],
  ['Salted Crisps', 'Snacks', 150, 'g'],
  ['Cheese Puffs', 'Snacks', 100, 'g'],
  ['Rolled Oats', 'Cereal', 500, 'g'],
  ['Corn Flakes', 'Cereal', 375, 'g'],
  ['Sparkling Water', 'Drinks', 500, 'ml'],
  ['Cola', 'Drinks', 330, 'ml'],
  ['Tomato Soup', 'Tins', 400, 'g'],
  ['Baked Beans', 'Tins', 415, 'g'],
  ['Peanut Butter', 'Spreads', 340, 'g'],
  ['Strawberry Jam', 'Spreads', 454, 'g'],
  ['Green Tea', 'Hot Drinks', 40, 'bags'],
  ['Ground Coffee', 'Hot Drinks', 227, 'g'],
];
const COLOURS = [
  '#c0392b',
  '#2471a3',
  '#1e8449',
  '#b9770e',
  '#7d3c98',
  '#117a65',
  '#a04000',
  '#1f618d',
  '#943126',
  '#2e4053',
];
const FONTS = ['DejaVu Sans', 'DejaVu Serif', 'DejaVu Sans Condensed', 'DejaVu Sans Mono'];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

export function catalogue(seed: number): Item[] {
  const r = rng(seed);
  const items: Item[] = [];
  for (let i = 0; i < 32; i++) {
    const [name, category, sizeValue, sizeUnit] = PRODUCTS[i % PRODUCTS.length]!;
    const brand = BRANDS[(i * 7 + Math.floor(i / PRODUCTS.length)) % BRANDS.length]!;
    const upc = ean13(
      `50${String(10000000 + r.int(0, 89999999)).padStart(8, '0')}${String(i).padStart(2, '0')}`.slice(0, 12),
    );
    items.push({
      sku: `${brand.slice(0, 3).toUpperCase()}-${name.replace(/\W+/g, '').slice(0, 6).toUpperCase()}-${i}`,
      upc,
      brand,
      name: `${name} ${sizeValue}${sizeUnit === 'bags' ? ' bags' : sizeUnit}`,
      category,
      sizeValue,
      sizeUnit,
      expectedPrice: r.int(50, 599) / 100,
      currency: 'GBP',
    });
  }
  return items;
}

function rotatePoint(x: number, y: number, cx: number, cy: number, rad: number): [number, number] {
  const dx = x - cx;
  const dy = y - cy;
  return [cx + dx * Math.cos(rad) - dy * Math.sin(rad), cy + dx * Math.sin(rad) + dy * Math.cos(rad)];
}

/**
 * Label colours of the `mixed` palette (paper, print, promotion print): besides white and yellow
 * paper, dark and coloured labels with light print, as many stores use. The `classic` palette
 * (the committed set) draws white labels and yellow promotions only.
 */
const MIXED_LABELS: [string, string, string][] = [
  ['#ffffff', '#111111', '#b71c1c'],
  ['#ffeb3b', '#111111', '#b71c1c'],
  ['#1a237e', '#ffffff', '#ffeb3b'],
  ['#c62828', '#ffffff', '#ffffff'],
  ['#2e7d32', '#ffffff', '#ffffff'],
  ['#212121', '#f5f5f5', '#ffd54f'],
  ['#fff8e1', '#3e2723', '#b71c1c'],
];

export async function renderShelf(
  items: Item[],
  seed: number,
  width: number,
  height: number,
  palette: 'classic' | 'mixed' = 'classic',
) {
  const r = rng(seed);
  const rows = r.int(3, 4);
  const rowH = height / rows;
  const positions =
    rows === 3 ? (['top', 'eye-level', 'bottom'] as const) : (['top', 'eye-level', 'middle', 'bottom'] as const);
  let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${r.pick(['#d9d4c7', '#cfd8dc', '#e0dcd0', '#d7ccc8'])}"/>`;
  const barcodes: { svg: string; x: number; y: number; w: number; h: number }[] = [];
  const products: TruthProduct[] = [];
  const used = new Set<string>();
  for (let row = 0; row < rows; row++) {
    const top = row * rowH;
    const boardY = top + rowH * 0.62;
    svg += `<rect x="0" y="${boardY}" width="${width}" height="${rowH * 0.06}" fill="#5d4037"/>`;
    svg += `<rect x="0" y="${boardY + rowH * 0.06}" width="${width}" height="${rowH * 0.3}" fill="#8d8d8d"/>`;
    let x = r.int(10, 40);
    while (x < width - 260) {
      let item = r.pick(items);
      for (let tries = 0; used.has(item.sku) && tries < 20; tries++) item = r.pick(items);
      if (used.has(item.sku)) break;
      used.add(item.sku);
      const packW = r.int(72, 104);
      const packH = r.int(Math.round(rowH * 0.38), Math.round(rowH * 0.58));
      const units = r.int(1, Math.max(1, Math.min(4, Math.floor((width - 40 - x) / (packW + 6)))));
      const groupW = Math.max(units * (packW + 6), 250);
      if (x + groupW > width - 10) break;
      const colour = r.pick(COLOURS);
      const font = r.pick(FONTS);
      for (let u = 0; u < units; u++) {
        const px = x + u * (packW + 6);
        const py = boardY - packH;
        svg += `<rect x="${px}" y="${py}" width="${packW}" height="${packH}" rx="${r.int(0, 10)}" fill="${colour}" stroke="#222" stroke-width="1"/>`;
        svg += `<text x="${px + packW / 2}" y="${py + packH * 0.3}" font-family="${font}" font-size="${Math.min(17, (packW / item.brand.length) * 1.6)}" font-weight="bold" fill="#fff" text-anchor="middle">${esc(item.brand)}</text>`;
        svg += `<text x="${px + packW / 2}" y="${py + packH * 0.5}" font-family="${font}" font-size="11" fill="#fff" text-anchor="middle">${esc(item.name.split(' ').slice(0, 2).join(' '))}</text>`;
      }
      // The label: name, price (or a promotion), barcode.
      const labelW = Math.min(groupW - 6, 300);
      const lx = x;
      const ly = boardY + rowH * 0.075;
      const lh = rowH * 0.29;
      const bw = 84;
      const bh = 26;
      const kind = r.next();
      const price = item.expectedPrice;
      let discounted: number | null = null;
      let priceText = `£${price.toFixed(2)}`;
      if (kind < 0.15) {
        discounted = Math.round(price * r.int(60, 85)) / 100;
        priceText = `WAS £${price.toFixed(2)} NOW £${discounted.toFixed(2)}`;
      } else if (kind < 0.25) {
        const total = Math.round(price * 2 * 0.8 * 100) / 100;
        discounted = Math.round((total / 2) * 100) / 100;
        priceText = `£${price.toFixed(2)} 2 for £${total.toFixed(2)}`;
      }
      const yellow = discounted !== null;
      const [paper, ink, promoInk] =
        palette === 'mixed' ? r.pick(MIXED_LABELS) : [yellow ? '#ffeb3b' : '#ffffff', '#111', '#b71c1c'];
      svg += `<rect x="${lx}" y="${ly}" width="${labelW}" height="${lh}" fill="${paper}" stroke="#444" stroke-width="1"/>`;
      const nameText = `${item.brand} ${item.name}`;
      // Shrink long names to fit the label: a label's text is what carries the match.
      const nameSize = Math.min(r.int(19, 23), Math.floor((labelW - 16) / (nameText.length * 0.62)));
      svg += `<text x="${lx + 8}" y="${ly + nameSize + 4}" font-family="${font}" font-size="${nameSize}" fill="${ink}">${esc(nameText)}</text>`;
      const priceSize =
        discounted !== null
          ? Math.min(r.int(20, 23), Math.floor((labelW - bw - 24) / (priceText.length * 0.66)))
          : r.int(28, 34);
      svg += `<text x="${lx + 8}" y="${ly + lh - 10}" font-family="${font}" font-size="${priceSize}" font-weight="bold" fill="${yellow ? promoInk : ink}">${esc(priceText)}</text>`;
      // On coloured paper the symbol is printed on a white patch, or in the label's own print colour
      // straight on the paper (light bars on dark paper: an inverted symbol).
      const patch = palette === 'mixed' && r.next() < 0.5;
      if (patch)
        svg += `<rect x="${lx + labelW - bw - 9}" y="${ly + lh - bh - 9}" width="${bw + 6}" height="${bh + 6}" fill="#ffffff"/>`;
      const barcolor = palette === 'mixed' && !patch ? ink.replace('#', '') : '000000';
      barcodes.push({
        svg: bwipjs.toSVG({ bcid: 'ean13', text: item.upc, height: 6, includetext: false, barcolor }),
        x: lx + labelW - bw - 6,
        y: ly + lh - bh - 6,
        w: bw,
        h: bh,
      });
      let occluded = false;
      if (r.next() < 0.08) {
        occluded = true;
        svg += `<rect x="${lx + labelW * 0.55}" y="${ly - 4}" width="${labelW * 0.5}" height="${lh * 0.55}" fill="#6d4c41" opacity="0.95"/>`;
      }
      const cxg = x + groupW / 2;
      products.push({
        sku: item.sku,
        upc: item.upc,
        brand: item.brand,
        name: item.name,
        units,
        price,
        discountedPrice: discounted,
        onSale: discounted !== null,
        currency: 'GBP',
        shelfPosition: positions[row]!,
        shelfSection: cxg < width / 3 ? 'left' : cxg < (2 * width) / 3 ? 'center' : 'right',
        bbox: [x, boardY - packH, x + units * (packW + 6), boardY],
        label: { bbox: [lx, ly, lx + labelW, ly + lh], text: `${item.brand} ${item.name} ${priceText}`, occluded },
      });
      x += groupW + r.int(14, 40);
    }
  }
  svg += '</svg>';
  const composites = await Promise.all(
    barcodes.map(async (b) => ({
      input: await sharp(Buffer.from(b.svg)).resize(b.w, b.h, { fit: 'fill' }).png().toBuffer(),
      left: Math.round(b.x),
      top: Math.round(b.y),
    })),
  );
  let img = sharp(Buffer.from(svg)).composite(composites);
  const base = await img.png().toBuffer();
  // Camera-like degradations, each drawn per image.
  const angle = (r.next() - 0.5) * 3;
  const sigma = 0.3 + r.next() * 0.8;
  const noise = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 6 + r.next() * 10 },
    },
  })
    .png()
    .toBuffer();
  img = sharp(base)
    .composite([{ input: noise, blend: 'overlay' }])
    .blur(sigma)
    .modulate({ brightness: 0.9 + r.next() * 0.2 })
    .rotate(angle, { background: '#777777' });
  const rotated = await img.png().toBuffer({ resolveWithObject: true });
  // rotate() grows the canvas: crop back to the original size around the centre.
  const left = Math.round((rotated.info.width - width) / 2);
  const top = Math.round((rotated.info.height - height) / 2);
  const quality = r.int(70, 90);
  const jpeg = await sharp(rotated.data).extract({ left, top, width, height }).jpeg({ quality }).toBuffer();
  const rad = (angle * Math.PI) / 180;
  const tb = (b: Box): Box => {
    const pts = [
      [b[0], b[1]],
      [b[2], b[1]],
      [b[0], b[3]],
      [b[2], b[3]],
    ].map(([px, py]) => rotatePoint(px!, py!, width / 2, height / 2, rad));
    return [
      Math.min(...pts.map((p) => p[0])),
      Math.min(...pts.map((p) => p[1])),
      Math.max(...pts.map((p) => p[0])),
      Math.max(...pts.map((p) => p[1])),
    ].map((v) => Math.round(Math.max(0, v))) as Box;
  };
  for (const p of products) {
    p.bbox = tb(p.bbox);
    p.label.bbox = tb(p.label.bbox);
  }
  return {
    jpeg,
    truth: {
      width,
      height,
      rotationDegrees: Number(angle.toFixed(2)),
      blurSigma: Number(sigma.toFixed(2)),
      jpegQuality: quality,
      products,
    },
  };
}

if (process.argv[1]?.endsWith('generate-shelves.ts')) {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      count: { type: 'string', default: '12' },
      seed: { type: 'string', default: '42' },
      width: { type: 'string', default: '1600' },
      height: { type: 'string', default: '1200' },
      // classic (white labels, yellow promotions: the committed set) or mixed (dark and coloured labels too).
      palette: { type: 'string', default: 'classic' },
    },
  });
  if (!values.out) throw new Error('--out <dir> is required');
  if (values.palette !== 'classic' && values.palette !== 'mixed') throw new Error('--palette: classic or mixed');
  mkdirSync(values.out, { recursive: true });
  const seed = Number(values.seed);
  const items = catalogue(seed);
  writeFileSync(join(values.out, 'catalogue.json'), JSON.stringify(items, null, 2));
  for (let i = 0; i < Number(values.count); i++) {
    const id = `shelf-${String(i + 1).padStart(2, '0')}`;
    const { jpeg, truth } = await renderShelf(
      items,
      seed * 1000 + i,
      Number(values.width),
      Number(values.height),
      values.palette,
    );
    writeFileSync(join(values.out, `${id}.jpg`), jpeg);
    writeFileSync(join(values.out, `${id}.json`), JSON.stringify({ image: `${id}.jpg`, ...truth }, null, 2));
    console.log(`${id}: ${truth.products.length} products, ${Math.round(jpeg.length / 1024)} KiB`);
  }
}
