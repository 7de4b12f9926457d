import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { LocalRecognizer } from '../../../../src/modules/recognition/engines/local/local-recognizer.js';
import { OcrPool } from '../../../../src/modules/recognition/engines/local/ocr-pool.js';
import type { RecognizeInput } from '../../../../src/modules/recognition/recognizer.js';

const dir = resolve(import.meta.dirname, '../../../fixtures/synthetic-shelves');

describe('stage profile (RECOGNITION_PROFILE)', () => {
  const ocr = new OcrPool(1);
  const recognizer = new LocalRecognizer({ ocr });
  const out = mkdtempSync(join(tmpdir(), 'stage-profile-'));
  let input: RecognizeInput;

  before(async () => {
    const image = readFileSync(`${dir}/shelf-02.jpg`);
    const meta = await sharp(image).metadata();
    input = {
      image,
      width: meta.width!,
      height: meta.height!,
      catalogue: JSON.parse(readFileSync(`${dir}/catalogue.json`, 'utf8')),
    } as RecognizeInput;
  });
  after(async () => {
    delete process.env.RECOGNITION_PROFILE;
    await ocr.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('writes nothing when it is not asked for, and reads the same products either way', async () => {
    delete process.env.RECOGNITION_PROFILE;
    const file = join(out, 'off.jsonl');
    const plain = await recognizer.recognize(input);
    assert.equal(existsSync(file), false);

    process.env.RECOGNITION_PROFILE = join(out, 'on.jsonl');
    const profiled = await recognizer.recognize(input);
    delete process.env.RECOGNITION_PROFILE;
    // The profile runs the pack mask after the labels' reading instead of beside it: same products.
    assert.deepEqual(profiled, plain);
  });

  it("appends one line a photo: each stage's CPU seconds adding up to the photo's, and what they read", async () => {
    const file = join(out, 'lines.jsonl');
    process.env.RECOGNITION_PROFILE = file;
    await recognizer.recognize(input);
    await recognizer.recognize(input);
    delete process.env.RECOGNITION_PROFILE;
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 2);
    const [line] = lines;
    assert.equal(line.width, input.width);
    for (const stage of ['decode', 'paper', 'bars', 'firstRead', 'packs', 'barcodes', 'rest'])
      assert.ok(stage in line.stages, `stage ${stage} in ${JSON.stringify(line.stages)}`);
    const sum = Object.values(line.stages as Record<string, number>).reduce((s, v) => s + v, 0);
    assert.ok(Math.abs(sum - line.total) < 0.01, `${sum} vs ${line.total}`);
    assert.ok(line.total > 0);
    // The first generator's labels are paper: read on one first-look sheet.
    assert.ok(line.counts.paper > 0 && line.counts.crops110 >= line.counts.paper);
  });
});
