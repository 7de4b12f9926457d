import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import bwipjs from 'bwip-js';
import sharp from 'sharp';
import { barRegions } from '../../../../src/modules/recognition/engines/local/bar-regions.js';
import { countPacks, packMask, placeInRow } from '../../../../src/modules/recognition/engines/local/facings.js';
import { findLabelBoxes } from '../../../../src/modules/recognition/engines/local/label-finder.js';
import { LocalRecognizer } from '../../../../src/modules/recognition/engines/local/local-recognizer.js';
import { shelfInput } from '../../../helpers/shelf-photos.js';
import { OcrPool, pgm } from '../../../../src/modules/recognition/engines/local/ocr-pool.js';
import { PaddleOcr } from '../../../../src/modules/recognition/engines/local/paddle/paddle-ocr.js';
import { readLabels } from '../../../../src/modules/recognition/engines/local/label-reader.js';
import { decodePhoto, greenChannel } from '../../../../src/modules/recognition/engines/local/photo.js';

const dir = resolve(import.meta.dirname, '../../../fixtures/synthetic-shelves');
type Truth = { products: { sku: string; units: number; label: { bbox: [number, number, number, number] } }[] };
const truthOf = (name: string) => JSON.parse(readFileSync(`${dir}/${name}.json`, 'utf8')) as Truth;
const inside = (b: { x0: number; y0: number; x1: number; y1: number }, [x0, y0, x1, y1]: number[]) =>
  (x0! + x1!) / 2 > b.x0 && (x0! + x1!) / 2 < b.x1 && (y0! + y1!) / 2 > b.y0 && (y0! + y1!) / 2 < b.y1;

describe('local recognizer stages', () => {
  const pool = new OcrPool(1);
  let paddle: Promise<PaddleOcr> | undefined;
  const learned = () => (paddle ??= PaddleOcr.create());
  /** A JPEG read against the first generator's catalogue. */
  const readShelf = async (recognizer: LocalRecognizer, image: Buffer) =>
    recognizer.recognize(await shelfInput(image, JSON.parse(readFileSync(`${dir}/catalogue.json`, 'utf8'))));
  after(async () => {
    await pool.close();
    await (await paddle)?.close();
  });

  for (const name of ['shelf-03', 'shelf-08']) {
    it(`finds every label of ${name} by its paper, and nothing else`, async () => {
      const boxes = await findLabelBoxes(await decodePhoto(readFileSync(`${dir}/${name}.jpg`)));
      const truth = truthOf(name);
      for (const p of truth.products) assert.equal(boxes.filter((b) => inside(b, p.label.bbox)).length, 1, p.sku);
      assert.equal(boxes.length, truth.products.length);
    });
  }

  it('OCR reads a label handed over as PGM (raw grey pixels) word for word as it reads the same pixels as PNG', async () => {
    const [x0, y0, x1, y1] = truthOf('shelf-03').products[0]!.label.bbox;
    const { data, info } = await sharp(readFileSync(`${dir}/shelf-03.jpg`))
      .extract({ left: x0, top: y0, width: x1 - x0, height: y1 - y0 })
      .resize({ height: 110 })
      .toColourspace('b-w')
      .raw()
      .toBuffer({ resolveWithObject: true });
    assert.equal(info.channels, 1);
    const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: 1 } })
      .png()
      .toBuffer();
    const fromPng = await pool.words(png);
    const fromPgm = await pool.words(pgm(data, info.width, info.height));
    assert.ok(
      fromPng.some((w) => /\d[.,]\d\d/.test(w.text)),
      JSON.stringify(fromPng.map((w) => w.text)),
    );
    assert.deepEqual(fromPgm, fromPng);
  });

  it('counts the packs standing above each label of shelf-05', async () => {
    const photo = await decodePhoto(readFileSync(`${dir}/shelf-05.jpg`));
    const [boxes, packs] = await Promise.all([findLabelBoxes(photo), packMask(photo)]);
    for (const p of truthOf('shelf-05').products) {
      const label = boxes.find((b) => inside(b, p.label.bbox))!;
      const place = placeInRow(label, boxes, photo.width);
      assert.equal(countPacks(packs, label, place).units, p.units, p.sku);
    }
  });

  it('tells a barcode from printed text', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="160"><rect width="100%" height="100%" fill="#fff"/>
      <text x="10" y="40" font-family="DejaVu Sans" font-size="26">Polar Peak Whole Milk 2L</text>
      <text x="10" y="130" font-family="DejaVu Sans" font-size="48" font-weight="bold">£1.11</text></svg>`;
    const text = await sharp(Buffer.from(svg)).png().toBuffer();
    const code = await sharp(
      Buffer.from(bwipjs.toSVG({ bcid: 'ean13', text: '5010345865092', height: 8, includetext: false })),
    )
      .resize(200, 50, { fit: 'fill' })
      .png()
      .toBuffer();
    const { data, info } = await sharp(text)
      .composite([{ input: code, left: 380, top: 95 }])
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const regions = barRegions(data, info.width, info.height);
    assert.equal(regions.length, 1);
    const [r] = regions;
    assert.ok(r!.x0 <= 390 && r!.x1 >= 570 && r!.y0 <= 105 && r!.y1 >= 135, JSON.stringify(r));
  });

  it('finds a barcode that leans, as in a photo taken a few degrees askew', async () => {
    const code = await sharp(
      Buffer.from(bwipjs.toSVG({ bcid: 'ean13', text: '5010345865092', height: 12, includetext: false })),
    )
      .resize(200, 70, { fit: 'fill' })
      .rotate(5, { background: '#ffffff' })
      .png()
      .toBuffer();
    const { data, info } = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#ffffff' } })
      .composite([{ input: code, left: 90, top: 50 }])
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const regions = barRegions(data, info.width, info.height);
    assert.equal(regions.length, 1, JSON.stringify(regions));
    const [r] = regions;
    assert.ok(r!.x0 <= 110 && r!.x1 >= 280, JSON.stringify(r));
  });

  it("reads a label on the same sheet as crops that are not labels, which alone would spoil the sheet's layout", async () => {
    // The second generator's shelf-01: dark labels, and the paper finder's crops all packs' windows.
    const photo = await decodePhoto(readFileSync(resolve(dir, '../second-generator-shelves/shelf-01.jpg')));
    const label = { x0: 68, y0: 355, x1: 270, y1: 465 }; // "GUMMY BEARS 180G £1.50 each 2 for £2"
    const boxes = [...(await findLabelBoxes(photo)), label];
    assert.ok(boxes.length >= 12);
    const readings = await readLabels(pool, greenChannel(photo), boxes);
    const text = readings.at(-1)!.text;
    assert.match(text, /BEARS/);
    assert.match(text, /1\.50/);
  });

  it('with the learned recognizer beside tesseract, reads every label of shelf-03, two of them print tesseract cannot make out', async () => {
    const products = await readShelf(
      new LocalRecognizer({ ocr: pool, text: learned }),
      readFileSync(`${dir}/shelf-03.jpg`),
    );
    const truth = truthOf('shelf-03');
    const found = new Set(products.map((p) => p.sku));
    assert.deepEqual(
      truth.products.filter((p) => !found.has(p.sku)).map((p) => p.sku),
      [],
    );
    assert.equal(products.filter((p) => p.sku && !truth.products.some((t) => t.sku === p.sku)).length, 0);
  });

  for (const withLearned of [false, true])
    it(`reads a label that prints its price as a bare integer, as yen tags do${withLearned ? ' (learned recognizer)' : ''}`, async () => {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="500"><rect width="100%" height="100%" fill="#8d8d8d"/>
      <rect x="200" y="150" width="360" height="140" fill="#ffffff" stroke="#444"/>
      <text x="212" y="182" font-family="DejaVu Sans" font-size="22" fill="#111">Sunvale Cola 330ml</text>
      <text x="300" y="272" font-family="DejaVu Sans" font-size="64" font-weight="bold" fill="#111">198</text></svg>`;
      const image = await sharp(Buffer.from(svg)).jpeg().toBuffer();
      const products = await readShelf(
        new LocalRecognizer({ ocr: pool, text: withLearned ? learned : undefined }),
        image,
      );
      assert.equal(products.length, 1);
      assert.equal(products[0]!.sku, 'SUN-COLA-9');
      assert.equal(products[0]!.price, 198);
    });

  it("does not read closer a paper that names, with no price, a product another label shows priced (a pack's window)", async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="500"><rect width="100%" height="100%" fill="#8d8d8d"/>
      <rect x="120" y="300" width="360" height="140" fill="#ffffff"/>
      <text x="132" y="340" font-family="DejaVu Sans" font-size="26" fill="#111">Sunvale Cola 330ml</text>
      <text x="260" y="420" font-family="DejaVu Sans" font-size="56" font-weight="bold" fill="#111">£3.08</text>
      <rect x="560" y="60" width="360" height="140" fill="#ffffff"/>
      <text x="572" y="100" font-family="DejaVu Sans" font-size="26" fill="#111">Sunvale Cola 330ml</text></svg>`;
    const image = await sharp(Buffer.from(svg)).jpeg().toBuffer();
    let sheets = 0;
    const counting = new Proxy(pool, {
      get: (target, prop) =>
        prop === 'words' || prop === 'lines'
          ? (...args: unknown[]) => {
              sheets++;
              return (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
            }
          : Reflect.get(target, prop),
    });
    const products = await readShelf(new LocalRecognizer({ ocr: counting }), image);
    // The window's sighting is not given as a product of its own beside the priced label's (D350).
    assert.deepEqual(
      products.map((p) => [p.sku, p.price]),
      [['SUN-COLA-9', 3.08]],
    );
    // The first look's one sheet: before, the window was read again closer (a sheet at 220 px, then
    // the tag-price reading's thresholds: 6 calls), for a product already found with its price.
    assert.equal(sheets, 1);
  });

  it('names a label whose price shows a currency sign no catalogue entry is priced in (a misread £)', async () => {
    // The catalogue is in pounds only; "€3.08" is how OCR read a "£" on a first-generator label.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="500"><rect width="100%" height="100%" fill="#8d8d8d"/>
      <rect x="120" y="300" width="360" height="140" fill="#ffffff"/>
      <text x="132" y="340" font-family="DejaVu Sans" font-size="26" fill="#111">Sunvale Cola 330ml</text>
      <text x="260" y="420" font-family="DejaVu Sans" font-size="56" font-weight="bold" fill="#111">€3.08</text></svg>`;
    const products = await readShelf(
      new LocalRecognizer({ ocr: pool }),
      await sharp(Buffer.from(svg)).jpeg().toBuffer(),
    );
    assert.deepEqual(
      products.map((p) => [p.sku, p.price]),
      [['SUN-COLA-9', 3.08]],
    );
  });

  it('with an empty catalogue, reads again only the labels it found no price on, for the same products', async () => {
    // OCR that counts the pixels it is given: the first look's sheet, then any closer look's.
    const read = async (catalogue: unknown[]) => {
      let pixels = 0;
      const counting = new Proxy(pool, {
        get: (target, prop) =>
          prop === 'words' || prop === 'lines'
            ? (image: Buffer, ...rest: unknown[]) => {
                const [, w, h] = image.subarray(0, 32).toString('latin1').split(/\s+/);
                pixels += Number(w) * Number(h);
                return (target[prop] as (...a: unknown[]) => unknown).call(target, image, ...rest);
              }
            : Reflect.get(target, prop),
      });
      const image = readFileSync(`${dir}/shelf-01.jpg`);
      const meta = await sharp(image).metadata();
      const products = await new LocalRecognizer({ ocr: counting }).recognize({
        image,
        contentType: 'image/jpeg',
        width: meta.width!,
        height: meta.height!,
        catalogue: catalogue as never,
        runIndex: 0,
      });
      return { pixels, prices: products.map((p) => p.price) };
    };
    const withCatalogue = await read(JSON.parse(readFileSync(`${dir}/catalogue.json`, 'utf8')));
    const empty = await read([]);
    // Re-reading every label it could not name (none, with no catalogue) tripled the pixels read.
    assert.ok(
      empty.pixels <= withCatalogue.pixels,
      `${empty.pixels} pixels read with no catalogue, ${withCatalogue.pixels} with it`,
    );
    assert.deepEqual(empty.prices, withCatalogue.prices);
  });

  it('reads a photo with no label paper in it whole (the fallback)', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="500"><rect width="100%" height="100%" fill="#8d8d8d"/>
      <text x="60" y="200" font-family="DejaVu Sans" font-size="34" fill="#111">Sunvale Cola 330ml</text>
      <text x="60" y="260" font-family="DejaVu Sans" font-size="44" font-weight="bold" fill="#111">£3.08</text></svg>`;
    const image = await sharp(Buffer.from(svg)).jpeg().toBuffer();
    assert.deepEqual(await findLabelBoxes(await decodePhoto(image)), []);
    const products = await readShelf(new LocalRecognizer({ ocr: pool }), image);
    assert.equal(products.length, 1);
    assert.equal(products[0]!.sku, 'SUN-COLA-9');
    assert.equal(products[0]!.price, 3.08);
  });
});
