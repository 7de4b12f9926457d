// Second synthetic shelf-photo generator
// =======================================
//
//   npx tsx scripts/synth/second-generator/generate.ts --out DIR [--count 12] [--seed 2035]
//       [--min-width 1280] [--max-width 4032] [--max-kb N]
//
// Written apart from scripts/synth/generate-shelves.ts and from the recognition engine, on purpose:
// its photos are for checking the engine, never for tuning it. Deterministic for a seed (own PRNG,
// one forked stream per photo and per purpose); runs offline with sharp, bwip-js and the machine's
// fonts (DejaVu via fontconfig, generic families as fallback).
//
// Writes DIR/catalogue.json (one catalogue, 58 invented items in GBP, EUR, USD and JPY) and, per
// photo, DIR/shelf-NN.jpg with DIR/shelf-NN.json (the truth: one entry per visible label, boxes in
// the photo's pixels, plus the distortions used). --max-kb lowers the JPEG quality (not below 60)
// until a photo fits, for committed samples; --max-width caps the random size. The committed sample
// (test/fixtures/second-generator-shelves) is `--count 12 --seed 2035 --max-width 2400 --max-kb 580`.
//
// What varies, photo to photo:
// - The store: currency and price writing (£1.29 / 99p, 1,29 € / €1.29, $3.49 / 99¢, ¥198 / 198円),
//   one or two house label styles, a promotion style, accent colour, fonts (sans, condensed, serif,
//   mono; regular and bold), names in capitals or not, pence printed smaller, labels at the left edge
//   of their facings or centred under them.
// - Label styles (labels.ts): white strip ticket, yellow and red promotion tickets, dark ticket with
//   light text, punched peg-hook tag, big-price ticket with a small name, continental ticket with the
//   barcode beside the price, cream serif deli ticket with capitals, electronic e-paper label.
// - Prices: usually the catalogue's, sometimes a price change; promotions as WAS/NOW or "2 for £3"
//   with the regular price also printed ("£1.75 each"); unit prices in small print.
// - Barcodes: EAN-13 or UPC-A of the item, 1-3 px modules before the camera (so many are small),
//   digits printed or not, on white windows or on the label's colour.
// - The bay: 2-6 rows, shelf rows with shelf-edge strips or a peg-hook row (tags hanging above the
//   packs, or a label strip below), pegboard or plain back panel, uprights, 6-20 products as packs
//   (boxes, cans, bottles, jars, cartons, tubs, bags, pouches, blister cards) in 1-10 facings,
//   sometimes stacked two high, empty facings (bare shelf, no label), and labels partly hidden (at
//   most 30% of the label, never the price) by a pack slid over the shelf edge, a wobbler or a clip
//   strip — marked occluded.
// - The camera: 4:3 or 16:9 from 1280 to 4032 px wide, keystone of up to ~7% edge to edge, roll up to
//   ±4°, the zoom that keeps the frame filled, Gaussian blur 0-1.2 σ (sometimes a phone's sharpening
//   instead), a glare ellipse, exposure, colour cast (tungsten, daylight, fluorescent), vignetting,
//   light fall-off, sensor noise, JPEG quality 60-95.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { symbologyOf } from './barcodes.js';
import { type Currency, buildCatalogue, catalogueJson } from './catalogue.js';
import { chooseCamera, chooseEffects, photograph, projectBox, safeRect } from './camera.js';
import { Rng } from './random.js';
import { buildScene, renderScene } from './scene.js';

const { values } = parseArgs({
  options: {
    out: { type: 'string' },
    count: { type: 'string', default: '12' },
    seed: { type: 'string', default: '2035' },
    'min-width': { type: 'string', default: '1280' },
    'max-width': { type: 'string', default: '4032' },
    'max-kb': { type: 'string' },
  },
});
if (!values.out) {
  console.error('usage: generate.ts --out DIR [--count N] [--seed S] [--min-width W] [--max-width W] [--max-kb N]');
  process.exit(2);
}
const out = values.out;
const count = Number(values.count);
const minWidth = Number(values['min-width']);
const maxWidth = Number(values['max-width']);
const maxBytes = values['max-kb'] ? Number(values['max-kb']) * 1024 : undefined;
const WIDTHS = [1280, 1600, 1920, 2048, 2400, 2560, 3024, 3264, 4032].filter((w) => w >= minWidth && w <= maxWidth);
if (!(count > 0) || WIDTHS.length === 0) throw new Error('--count must be positive and the width range hold 1280-4032');

const root = new Rng(`second-generator:${values.seed}`);
const catalogue = buildCatalogue(root.fork('catalogue'));
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'catalogue.json'), JSON.stringify(catalogueJson(catalogue), null, 2) + '\n');

const stock = (currency: Currency) => catalogue.filter((p) => p.currency === currency);

/** Rows of labels, top to bottom, as the evaluator names them. */
function shelfPosition(row: number, rows: number): string {
  if (rows === 1) return 'eye-level';
  if (row === 0) return 'top';
  if (row === rows - 1) return 'bottom';
  if (row === 1) return 'eye-level';
  return 'middle';
}

const digits = Math.max(2, String(count).length);
let totalSeconds = 0;
for (let i = 1; i <= count; i++) {
  const started = performance.now();
  const rng = root.fork(`photo-${i}`);
  const currency = rng.weighted<Currency>([
    ['GBP', 4],
    ['EUR', 2.5],
    ['USD', 2],
    ['JPY', 1.5],
  ]);
  const width = rng.pick(WIDTHS);
  const height = Math.round(rng.chance(0.6) ? (width * 3) / 4 : (width * 9) / 16);
  const cam = chooseCamera(width, height, rng.fork('camera'));
  const safe = safeRect(cam, Math.round(width * 0.012));
  // A small frame with long names can fit fewer than six labels: lay the bay out again.
  let scene = await buildScene(width, height, safe, stock(currency), rng.fork('scene'));
  for (let attempt = 1; scene.products.length < 6 && attempt <= 8; attempt++) {
    scene = await buildScene(width, height, safe, stock(currency), rng.fork(`scene-${attempt}`));
  }
  const fx = chooseEffects(width, height, rng.fork('effects'));
  const { jpeg, quality } = await photograph(await renderScene(scene), cam, fx, rng.fork('sensor'), maxBytes);

  const rows = scene.rowKinds.length;
  const placed = scene.products
    .map((p) => {
      const bbox = projectBox(
        cam,
        p.packs.flatMap((r): [number, number][] => [
          [r.x0, r.y0],
          [r.x1, r.y0],
          [r.x1, r.y1],
          [r.x0, r.y1],
        ]),
      );
      const label = projectBox(cam, p.labelCorners);
      const centre = (Math.min(bbox[0], label[0]) + Math.max(bbox[2], label[2])) / 2;
      return { p, bbox, label, section: centre < width / 3 ? 'left' : centre < (2 * width) / 3 ? 'center' : 'right' };
    })
    .sort((a, b) => a.p.row - b.p.row || a.label[0] - b.label[0]);
  const name = `shelf-${String(i).padStart(digits, '0')}`;
  const truth = {
    image: `${name}.jpg`,
    width,
    height,
    products: placed.map(({ p, bbox, label, section }) => ({
      sku: p.product.sku,
      upc: p.product.upc,
      brand: p.product.brand,
      name: p.product.name,
      units: p.units,
      price: p.price.regular,
      discountedPrice: p.price.discounted,
      onSale: p.price.discounted !== null,
      currency: p.product.currency,
      shelfPosition: shelfPosition(p.row, rows),
      shelfSection: section,
      bbox,
      label: { bbox: label, text: p.art.text, occluded: p.occluder !== null },
    })),
    // How this photo was made (not read by the evaluator).
    generator: 'second-generator',
    seed: values.seed,
    currency,
    priceFormat: scene.priceStyle,
    rows: scene.rowKinds,
    houseLabelStyles: scene.houseStyles,
    labelScale: scene.labelScale,
    rotationDegrees: Math.round(cam.rotationDegrees * 100) / 100,
    keystone: {
      horizontal: Math.round(cam.keystone.horizontal * 1000) / 1000,
      vertical: Math.round(cam.keystone.vertical * 1000) / 1000,
    },
    zoom: Math.round(cam.zoom * 1000) / 1000,
    blurSigma: fx.blurSigma,
    sharpened: fx.sharpen,
    noiseSigma: fx.noiseSigma,
    jpegQuality: quality,
    brightness: fx.brightness,
    colourCast: fx.colourCast,
    vignette: fx.vignette,
    lightGradient: fx.lightGradient,
    glare: fx.glare,
    emptyFacings: scene.emptyFacings.map((r) =>
      projectBox(cam, [
        [r.x0, r.y0],
        [r.x1, r.y0],
        [r.x1, r.y1],
        [r.x0, r.y1],
      ]),
    ),
    details: placed.map(({ p }) => ({
      sku: p.product.sku,
      labelStyle: p.art.style,
      labelAngle: p.labelAngle,
      packKind: p.product.kind,
      stacked: p.stacked,
      promotion: p.price.promo.kind,
      priceChanged: p.price.changed,
      barcode: p.art.barcode
        ? {
            symbology: symbologyOf(p.product.upc),
            modulePx: Math.round(p.art.barcode.spec.module * cam.zoom * 100) / 100,
            digits: p.art.barcode.spec.digits,
          }
        : null,
      occluder: p.occluder,
    })),
  };
  writeFileSync(join(out, `${name}.jpg`), jpeg);
  writeFileSync(join(out, `${name}.json`), JSON.stringify(truth, null, 2) + '\n');
  const seconds = (performance.now() - started) / 1000;
  totalSeconds += seconds;
  console.log(
    `${name}: ${width}x${height} ${currency} ${rows} rows ${truth.products.length} products ` +
      `q${quality} ${Math.round(jpeg.length / 1024)} KB ${seconds.toFixed(2)} s`,
  );
}
console.log(`${count} photos in ${totalSeconds.toFixed(1)} s (${(totalSeconds / count).toFixed(2)} s each) -> ${out}`);
