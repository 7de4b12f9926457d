import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { ctcGreedy, withYenSign } from '../../../../src/modules/recognition/engines/local/paddle/ctc-decode.js';
import { parseLabelPrices } from '../../../../src/modules/recognition/engines/local/price-parser.js';
import { dbBoxes } from '../../../../src/modules/recognition/engines/local/paddle/db-postprocess.js';
import { PaddleOcr } from '../../../../src/modules/recognition/engines/local/paddle/paddle-ocr.js';
import {
  inkBeside,
  readTagPriceInBox,
  readTagPricesPaddle,
} from '../../../../src/modules/recognition/engines/local/paddle/paddle-tag-prices.js';
import { parsePriceLine } from '../../../../src/modules/recognition/engines/local/paddle/price-line.js';

// Three lines drawn where we know: left edge x, baseline y, font size.
const LINES = [
  { text: '£2.49', x: 40, y: 80, size: 40, weight: 'normal' },
  { text: 'Orange Juice 1L', x: 40, y: 190, size: 36, weight: 'normal' },
  { text: '198', x: 380, y: 300, size: 72, weight: 'bold' },
];
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="360"><rect width="640" height="360" fill="#fff"/>
  ${LINES.map(
    (l) =>
      `<text x="${l.x}" y="${l.y}" font-family="DejaVu Sans" font-size="${l.size}" font-weight="${l.weight}" fill="#111">${l.text}</text>`,
  ).join('\n')}</svg>`;

describe('PaddleOCR (PP-OCRv4 through onnxruntime-node)', () => {
  let ocr: PaddleOcr;
  let png: Buffer;
  before(async () => {
    ocr = await PaddleOcr.create();
    png = await sharp(Buffer.from(svg)).png().toBuffer();
  });
  after(() => ocr.close());

  it('finds each drawn line where it was drawn, one box each', async () => {
    const boxes = await ocr.detect(png);
    assert.equal(boxes.length, LINES.length, JSON.stringify(boxes));
    for (const [i, line] of LINES.entries()) {
      const box = boxes[i]!;
      // The box starts at the text's left edge and spans its cap height down to the baseline.
      assert.ok(Math.abs(box.x0 - line.x) <= 8, `${line.text}: x0 ${box.x0}`);
      assert.ok(box.y0 <= line.y - 0.7 * line.size && box.y0 >= line.y - 1.2 * line.size, `${line.text}: y0 ${box.y0}`);
      assert.ok(box.y1 >= line.y && box.y1 <= line.y + 0.4 * line.size, `${line.text}: y1 ${box.y1}`);
      assert.ok(box.score > 0.6);
    }
  });

  it('reads the lines exactly, but for the £ its Chinese dictionary lacks', async () => {
    const lines = await ocr.readLines(png);
    assert.deepEqual(
      lines.slice(1).map((l) => l.text),
      ['Orange Juice 1L', '198'],
    );
    // The dictionary has ¥ and $ but no £: the sign comes back as a look-alike, the price intact.
    assert.match(lines[0]!.text, /^.?2\.49$/);
    assert.equal(parsePriceLine(lines[0]!.text), 2.49);
    for (const l of lines) assert.ok(l.confidence > 0.9, `${l.text}: ${l.confidence}`);
  });

  it('reads a yen price whose 円 its dictionary lacks as yen, not as the look-alike it knows', async () => {
    // 円 as the second generator draws it, in strokes (the machine has no CJK font): an open box,
    // the right side hooked, a stem from the top down to the middle bar.
    const yen = (x: number, y: number, s: number) => {
      const [w, h, t] = [0.8 * s, 0.85 * s, 0.09 * s];
      const top = y - h;
      return `<g fill="none" stroke="#111" stroke-width="${t}">
        <path d="M${x} ${y} L${x} ${top} L${x + w} ${top} L${x + w} ${y - t} L${x + w - 1.5 * t} ${y}"/>
        <path d="M${x + w / 2} ${top} L${x + w / 2} ${top + 0.55 * h}"/>
        <path d="M${x} ${top + 0.55 * h} L${x + w} ${top + 0.55 * h}"/></g>`;
    };
    const tag = await sharp(
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="360" height="100"><rect width="360" height="100" fill="#fff"/>
        <text x="20" y="75" font-family="DejaVu Sans" font-size="60" font-weight="bold" fill="#111">238</text>${yen(135, 75, 56)}</svg>`),
    )
      .png()
      .toBuffer();
    const [reading] = await ocr.recognize([tag]);
    // It was read `238電` (on labels of seed 2468 also `238四`, `588日`, `268田`): no price at all.
    assert.equal(reading!.text, '238円');
    assert.deepEqual([parseLabelPrices(reading!.text)!.price, parseLabelPrices(reading!.text)!.currency], [238, 'JPY']);
    assert.equal(withYenSign('12月31日'), '12月31日');
    assert.equal(withYenSign('LEMONADE2L 298月'), 'LEMONADE2L 298円');
    assert.equal(withYenSign('3月'), '3月');
  });

  it('reads crops handed over as encoded images or raw pixels (grey or RGBA) alike', async () => {
    const crop = sharp(png).extract({ left: 370, top: 230, width: 180, height: 90 });
    const encoded = await crop.clone().jpeg().toBuffer();
    const grey = await crop.clone().greyscale().raw().toBuffer({ resolveWithObject: true });
    const rgba = await crop.clone().ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const readings = await ocr.recognize([
      encoded,
      { data: grey.data, width: grey.info.width, height: grey.info.height, channels: grey.info.channels },
      { data: rgba.data, width: rgba.info.width, height: rgba.info.height, channels: rgba.info.channels },
    ]);
    assert.deepEqual(
      readings.map((r) => r.text),
      ['198', '198', '198'],
    );
  });

  it('reads the prices off a drawn tag and skips the product line', async () => {
    const prices = await readTagPricesPaddle(ocr, png);
    assert.deepEqual(prices.map((p) => p.value).sort(), [198, 2.49]);
    const big = prices.find((p) => p.value === 198)!;
    assert.ok(big.box.x0 >= 370 && big.box.x1 <= 540, JSON.stringify(big.box));
  });

  it('does not read the small print of a tag whose price line is already read', async () => {
    // A tag's big price with its price before tax just below it, and a second tag's price alone.
    const tags = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="360"><rect width="640" height="360" fill="#fff"/>
      <text x="60" y="150" font-family="DejaVu Sans" font-size="72" font-weight="bold" fill="#111">198</text>
      <text x="70" y="200" font-family="DejaVu Sans" font-size="24" fill="#111">183</text>
      <text x="420" y="150" font-family="DejaVu Sans" font-size="56" font-weight="bold" fill="#111">2.49</text></svg>`;
    const image = await sharp(Buffer.from(tags)).png().toBuffer();
    const read: { y0: number; y1: number }[] = [];
    const reader = Object.create(ocr) as PaddleOcr;
    reader.recognizeBoxes = (img, boxes, options) => {
      read.push(...boxes);
      return ocr.recognizeBoxes(img, boxes, options);
    };
    const prices = await readTagPricesPaddle(reader, image);
    assert.deepEqual(prices.map((p) => p.value).sort(), [198, 2.49]);
    // The small print's line (its middle near y 192) stands on the 198's tag: never handed to the recogniser.
    assert.ok(read.length >= 2);
    assert.ok(!read.some((b) => b.y0 > 170 && b.y1 < 215), JSON.stringify(read));
  });

  it('reads a price line a second time, widened to the left, only where print stands there', async () => {
    // The second look restores a leading "1" the detector's box cut off (D263); on bare paper
    // beside the price there is nothing to restore, so the line is read once (D280).
    const read: { x0: number }[] = [];
    const reader = Object.create(ocr) as PaddleOcr;
    reader.recognizeBoxes = (img, boxes, options) => {
      read.push(...boxes);
      return ocr.recognizeBoxes(img, boxes, options);
    };
    const tag = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="240"><rect width="640" height="240" fill="#fff"/>
      <text x="220" y="150" font-family="DejaVu Sans" font-size="72" font-weight="bold" fill="#111">198</text></svg>`;
    const prices = await readTagPricesPaddle(reader, await sharp(Buffer.from(tag)).png().toBuffer());
    assert.deepEqual(
      prices.map((p) => p.value),
      [198],
    );
    assert.equal(read.length, 1, JSON.stringify(read));
  });

  it('tells print beside a line from bare paper, dark print on light or light on dark', async () => {
    const stroke = (fg: string, bg: string) =>
      `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="120"><rect width="300" height="120" fill="${bg}"/>
      <rect x="92" y="30" width="8" height="60" fill="${fg}"/>
      <text x="120" y="90" font-family="DejaVu Sans" font-size="64" font-weight="bold" fill="${fg}">29</text></svg>`;
    const raw = async (svgText: string) => {
      const { data, info } = await sharp(Buffer.from(svgText))
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      return { data, width: info.width, height: info.height, channels: info.channels };
    };
    const line = { x0: 115, y0: 25, x1: 205, y1: 95 };
    for (const [fg, bg] of [
      ['#111', '#fff'],
      ['#fff', '#b00'],
    ]) {
      assert.equal(inkBeside(await raw(stroke(fg!, bg!)), line, 35), true, `a stroke, ${fg} on ${bg}`);
      assert.equal(inkBeside(await raw(stroke(fg!, bg!).replace(/<rect x="92"[^>]*>/, '')), line, 35), false);
    }
  });

  it('reads the price inside a given tag box, and nothing in a box of no price', async () => {
    const price = await readTagPriceInBox(ocr, png, { x0: 360, y0: 220, x1: 560, y1: 330 });
    assert.equal(price?.value, 198);
    assert.equal(await readTagPriceInBox(ocr, png, { x0: 0, y0: 0, x1: 60, y1: 40 }), null);
  });

  it('keeps the vocabulary and the model in step: blank, the dictionary, a space', () => {
    assert.equal(ocr.characters.length, 6625);
    assert.equal(ocr.characters[0], '');
    assert.equal(ocr.characters.at(-1), ' ');
  });
});

describe('PaddleOCR post-processing', () => {
  it('turns probability blobs into unclipped boxes in source pixels, dropping faint ones', () => {
    const W = 100;
    const H = 50;
    const map = new Float32Array(W * H);
    const fill = (x0: number, y0: number, x1: number, y1: number, p: number) => {
      for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) map[y * W + x] = p;
    };
    fill(10, 10, 49, 19, 0.9); // a confident line, 39 x 9 between pixel centres
    fill(60, 30, 89, 39, 0.45); // above the pixel threshold, below the box threshold
    const boxes = dbBoxes(map, W, H, 2, 2, 200, 100);
    assert.equal(boxes.length, 1);
    // Unclip distance: area * 1.5 / perimeter = 39 * 9 * 1.5 / 96, about 5.5 map pixels.
    const d = (39 * 9 * 1.5) / 96;
    assert.deepEqual(
      { x0: boxes[0]!.x0, y0: boxes[0]!.y0, x1: boxes[0]!.x1, y1: boxes[0]!.y1 },
      {
        x0: Math.round((10 - d) * 2),
        y0: Math.round((10 - d) * 2),
        x1: Math.round((49 + d) * 2),
        y1: Math.round((19 + d) * 2),
      },
    );
    assert.ok(Math.abs(boxes[0]!.score - 0.9) < 1e-6);
  });

  it('keeps a long line photographed off level: scored by its own pixels, unclipped by its thickness', () => {
    const W = 120;
    const H = 40;
    const map = new Float32Array(W * H);
    // A line 6 px thick and 90 long rising 14 px along its length: it fills about a third of its
    // upright box, so that box's mean (0.9 x 0.3) is under the threshold while the line is sure text.
    for (let x = 15; x < 105; x++) {
      const y0 = 25 - Math.floor(((x - 15) * 14) / 90);
      for (let dy = 0; dy < 6; dy++) map[(y0 + dy) * W + x] = 0.9;
    }
    const boxes = dbBoxes(map, W, H, 1, 1, W, H);
    assert.equal(boxes.length, 1);
    assert.ok(Math.abs(boxes[0]!.score - 0.9) < 1e-6);
    // Grown by area * 1.5 / perimeter of a 89 x 6 line (about 4.2 px), not of its 89 x 18 upright box (11.2).
    const d = (89 * 6 * 1.5) / (2 * (89 + 6));
    assert.deepEqual(
      { x0: boxes[0]!.x0, y0: boxes[0]!.y0, x1: boxes[0]!.x1, y1: boxes[0]!.y1 },
      { x0: Math.round(15 - d), y0: Math.round(12 - d), x1: Math.round(104 + d), y1: Math.round(30 + d) },
    );
  });

  it('decodes CTC: repeats merged, blanks dropped, a blank between repeats keeps both', () => {
    const characters = ['', 'H', 'e', 'l', 'o'];
    const steps = [1, 1, 2, 3, 3, 0, 3, 4, 0]; // H H e l l _ l o _
    const probs = new Float32Array(steps.length * characters.length);
    steps.forEach((c, t) => {
      probs.fill(0.05, t * 5, t * 5 + 5);
      probs[t * 5 + c] = 0.8;
    });
    const [reading] = ctcGreedy(probs, 1, steps.length, characters.length, characters);
    assert.equal(reading!.text, 'Hello');
    assert.ok(Math.abs(reading!.confidence - 0.8) < 1e-6);
  });

  it('reads prices as tags print them, and nothing else', () => {
    assert.equal(parsePriceLine('198'), 198);
    assert.equal(parsePriceLine('1,280'), 1280);
    assert.equal(parsePriceLine('¥198'), 198);
    assert.equal(parsePriceLine('￥１９８'), 198);
    assert.equal(parsePriceLine('198円'), 198);
    assert.equal(parsePriceLine('税込 213円'), 213);
    assert.equal(parsePriceLine('2,49 €'), 2.49);
    assert.equal(parsePriceLine('198-'), 198);
    for (const text of ['Orange Juice 1L', '7', '50015', '0.5', '08', '2for4.59', ''])
      assert.equal(parsePriceLine(text), null, text);
  });
});
