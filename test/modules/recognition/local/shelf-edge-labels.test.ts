import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { centreInside } from '../../../../src/modules/recognition/engines/local/boxes.js';
import { findLabelBoxes, findPaper } from '../../../../src/modules/recognition/engines/local/label-finder.js';
import type { Box } from '../../../../src/modules/recognition/engines/local/ocr-types.js';
import { decodePhoto } from '../../../../src/modules/recognition/engines/local/photo.js';
import { labelsOnShelfEdges } from '../../../../src/modules/recognition/engines/local/shelf-edge-labels.js';

const W = 1600;
const H = 1000;
const LABELS = [150, 520, 900, 1280].map((x) => ({ x0: x, y0: 600, x1: x + 120, y1: 665 }));

/**
 * A shelf drawn to the finders' blind spot (D379): a pale wall, white packs standing on a blue shelf
 * edge, and white labels clipped to the edge whose tops meet the packs' white: the paper finder's
 * white runs from each label into the pack above. `tilt`: the camera a few degrees askew.
 */
async function shelf(tilt: number): Promise<Buffer> {
  const packs = [120, 480, 860, 1240]
    .map((x) => `<rect x="${x}" y="330" width="180" height="270" fill="#f4f4f2"/>`)
    .join('');
  const labels = LABELS.map(
    (l) =>
      `<rect x="${l.x0}" y="${l.y0}" width="${l.x1 - l.x0}" height="${l.y1 - l.y0}" fill="#f6f6f4"/>` +
      `<text x="${l.x0 + 12}" y="${l.y0 + 22}" font-family="DejaVu Sans" font-size="11" fill="#222">OAT DRINK 1L</text>` +
      `<text x="${l.x0 + 40}" y="${l.y0 + 54}" font-family="DejaVu Sans" font-weight="bold" font-size="26" fill="#111">£1.29</text>`,
  ).join('');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">` +
    `<rect width="${W}" height="${H}" fill="#c8cacc"/>` +
    `<rect x="60" y="600" width="${W - 120}" height="70" fill="#1f4fa0"/>${packs}${labels}` +
    `<rect x="60" y="670" width="${W - 120}" height="40" fill="#8a8c90"/></svg>`;
  return sharp(Buffer.from(svg))
    .rotate(tilt, { background: '#c8cacc' })
    .resize(W, H, { fit: 'fill' })
    .jpeg({ quality: 85 })
    .toBuffer();
}

const found = (boxes: Box[], label: Box) => boxes.some((b) => centreInside(label, b, 0) && centreInside(b, label, 0));

describe('labels on shelf edges', () => {
  it('finds white labels whose tops meet white packs, which the paper finder loses in the packs', async () => {
    const photo = await decodePhoto(await shelf(0));
    const edges = await labelsOnShelfEdges(photo);
    for (const l of LABELS) assert.ok(found(edges, l), `label at x ${l.x0} found: ${JSON.stringify(edges)}`);
    assert.equal(edges.length, LABELS.length, JSON.stringify(edges));
    const paper = await findLabelBoxes(photo);
    assert.ok(
      LABELS.every((l) => !found(paper, l)),
      `the paper finder (what this finder is for) finds none: ${JSON.stringify(paper)}`,
    );
  });

  it('follows an edge across a photo taken askew', async () => {
    // 2° over 1,600 px moves the edge ~55 px from one end to the other, almost its height.
    const photo = await decodePhoto(await shelf(2));
    const edges = await labelsOnShelfEdges(photo);
    assert.ok(edges.length >= LABELS.length - 1, JSON.stringify(edges));
  });

  it('follows a black edge lit unevenly along its length (rgb 24 at its ends, 90 in its middle)', async () => {
    // The edge's colour drifts further from one end to its middle than one colour allows (D380); a
    // label in every other slice leaves slices without a band, so the chain must bridge the jump.
    const labels = LABELS.map(
      (l) =>
        `<rect x="${l.x0}" y="${l.y0 + 4}" width="${l.x1 - l.x0}" height="${l.y1 - l.y0 - 8}" fill="#f2f2ee"/>` +
        `<text x="${l.x0 + 34}" y="${l.y0 + 46}" font-family="DejaVu Sans" font-weight="bold" font-size="24" fill="#111">$1.59</text>`,
    ).join('');
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">` +
      `<defs><linearGradient id="lit" x1="0" x2="1" y1="0" y2="0"><stop offset="0" stop-color="#181818"/>` +
      `<stop offset="0.5" stop-color="#5a5a5a"/><stop offset="1" stop-color="#181818"/></linearGradient></defs>` +
      `<rect width="${W}" height="${H}" fill="#a8a294"/>` +
      `<rect x="60" y="600" width="${W - 120}" height="70" fill="url(#lit)"/>${labels}</svg>`;
    const photo = await decodePhoto(await sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer());
    const edges = await labelsOnShelfEdges(photo);
    for (const l of LABELS) assert.ok(found(edges, l), `label at x ${l.x0} found: ${JSON.stringify(edges)}`);
  });

  it('finds white labels on a yellow edge, which paper colour took for one strip with the edge (D397)', async () => {
    // White and yellow are both paper colours: the labels and their edge made one region, far too wide
    // for a label, and none was found.
    const labels = LABELS.map(
      (l) =>
        `<rect x="${l.x0}" y="${l.y0 + 4}" width="${l.x1 - l.x0}" height="${l.y1 - l.y0 - 8}" fill="#f6f6f4"/>` +
        `<text x="${l.x0 + 34}" y="${l.y0 + 46}" font-family="DejaVu Sans" font-weight="bold" font-size="24" fill="#111">1,95 €</text>`,
    ).join('');
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="${W}" height="${H}" fill="#b8bcc4"/>` +
      [120, 480, 860, 1240].map((x) => `<rect x="${x}" y="330" width="180" height="270" fill="#2a60c0"/>`).join('') +
      `<rect x="60" y="600" width="${W - 120}" height="70" fill="#f0c419"/>${labels}</svg>`;
    const photo = await decodePhoto(await sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer());
    const { paper, onStrips } = await findPaper(photo);
    for (const l of LABELS) assert.ok(found(onStrips, l), `label at x ${l.x0} found: ${JSON.stringify(onStrips)}`);
    assert.equal(onStrips.length, LABELS.length, JSON.stringify(onStrips));
    assert.ok(
      LABELS.every((l) => !found(paper, l)),
      JSON.stringify(paper),
    );
    const all = await findLabelBoxes(photo);
    assert.ok(
      LABELS.every((l) => found(all, l)),
      JSON.stringify(all),
    );
  });

  it('takes no box from a wall or from packs: a shelf without labels gives none', async () => {
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="${W}" height="${H}" fill="#d8d4cc"/>` +
      [100, 500, 900, 1300].map((x) => `<rect x="${x}" y="300" width="200" height="300" fill="#c03028"/>`).join('') +
      `<rect x="60" y="600" width="${W - 120}" height="70" fill="#333"/></svg>`;
    const photo = await decodePhoto(await sharp(Buffer.from(svg)).jpeg().toBuffer());
    assert.deepEqual(await labelsOnShelfEdges(photo), []);
  });

  it("finds most of a third-generator photo's labels, few boxes besides", async () => {
    // Seed 5's shelf-08 (the tuning fixture of pack-print.test.ts): e-paper labels on a dark edge.
    const dir = resolve(import.meta.dirname, '../../../fixtures/third-generator-tune');
    const truth = JSON.parse(readFileSync(`${dir}/shelf-08.json`, 'utf8')) as {
      products: { label: { bbox: [number, number, number, number] } }[];
    };
    const labels = truth.products.map(
      ({
        label: {
          bbox: [x0, y0, x1, y1],
        },
      }) => ({ x0, y0, x1, y1 }),
    );
    const edges = await labelsOnShelfEdges(await decodePhoto(readFileSync(`${dir}/shelf-08.jpg`)));
    const hits = labels.filter((l) => edges.some((b) => centreInside(l, b, 0))).length;
    const strays = edges.filter((b) => !labels.some((l) => centreInside(b, l, 10))).length;
    assert.ok(hits >= 9, `${hits} of ${labels.length} labels found`);
    assert.ok(strays <= 3, `${strays} boxes on no label`);
  });
});
