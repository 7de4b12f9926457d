import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { PSM } from 'tesseract.js';
import { procStat } from '../../../../src/lib/proc-stat.js';
import { findLabelBoxes } from '../../../../src/modules/recognition/engines/local/label-finder.js';
import { readLabels } from '../../../../src/modules/recognition/engines/local/label-reader.js';
import { NativeOcr } from '../../../../src/modules/recognition/engines/local/native-ocr.js';
import { nativeTesseract } from '../../../../src/modules/recognition/engines/local/native-tesseract.js';
import { OcrPool, pgm } from '../../../../src/modules/recognition/engines/local/ocr-pool.js';
import { decodePhoto, greenChannel } from '../../../../src/modules/recognition/engines/local/photo.js';
import { RecognitionPool } from '../../../../src/modules/recognition/engines/local/recognition-pool.js';
import { labelCrops } from '../../../helpers/label-crops.js';

const dir = resolve(import.meta.dirname, '../../../fixtures/synthetic-shelves');
const root = resolve(import.meta.dirname, '../../../..');
type Truth = { products: { price: number; discountedPrice: number | null }[] };

/** A first-pass sheet's worth of work: every label of a committed photo, read by `ocr` the way the recognizer reads them. */
async function readShelf(ocr: OcrPool, name: string) {
  const photo = await decodePhoto(readFileSync(`${dir}/${name}.jpg`));
  return readLabels(ocr, greenChannel(photo), await findLabelBoxes(photo));
}

/** How many of a photo's shelf prices appear, as printed, in the text read off its labels. */
function pricesRead(name: string, texts: string[]): number {
  const truth = JSON.parse(readFileSync(`${dir}/${name}.json`, 'utf8')) as Truth;
  const all = texts.join(' ');
  return truth.products.filter((p) => all.includes((p.discountedPrice ?? p.price).toFixed(2))).length;
}

/** The nice value of a process, from /proc (field 19 of its stat). */
function niceOf(pid: number): number {
  return procStat(pid)!.nice;
}

/** A process that has ended and waits for its parent to collect it (state Z in /proc). */
function isZombie(pid: number): boolean {
  const stat = procStat(pid);
  return stat === null || stat.state === 'Z';
}

/** Runs a snippet in a fresh process (the engine's resolution is per process), with `env` added. */
async function inFreshProcess(code: string, env: Record<string, string>) {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: root,
    env: { ...process.env, ...env },
  });
}

describe('the native tesseract engine', () => {
  const native = new OcrPool(1, 'fast', 'native');
  const wasm = new OcrPool(1, 'fast', 'wasm');
  after(async () => {
    await native.close();
    await wasm.close();
  });

  it('reads the labels of a shelf with the prices the wasm engine reads', async () => {
    assert.equal(native.engine, 'native');
    for (const name of ['shelf-03', 'shelf-08']) {
      const byNative = pricesRead(
        name,
        (await readShelf(native, name)).map((r) => r.text),
      );
      const byWasm = pricesRead(
        name,
        (await readShelf(wasm, name)).map((r) => r.text),
      );
      assert.ok(byNative >= byWasm, `${name}: ${byNative} prices read natively, ${byWasm} by wasm`);
      assert.ok(byNative > 0, name);
    }
  });

  it('answers lines with their words, boxes and confidences, and a whitelist limits the characters', async () => {
    const [crop] = await labelCrops('shelf-03');
    const image = pgm(crop!.region, crop!.width, crop!.height);
    const lines = await native.lines(image, PSM.SINGLE_BLOCK);
    assert.ok(lines.length > 0);
    for (const line of lines) {
      assert.ok(line.words.length > 0, line.text);
      assert.equal(line.text.replace(/\s+/g, ' '), line.words.map((w) => w.text).join(' '));
      assert.ok(line.confidence > 0 && line.confidence <= 100);
      for (const w of line.words) assert.ok(w.bbox.x0 >= line.bbox.x0 && w.bbox.x1 <= line.bbox.x1, w.text);
    }
    const digits = await native.lines(image, PSM.SINGLE_BLOCK, '0123456789.');
    assert.ok(
      digits.every((l) => /^[0-9. ]+$/.test(l.text)),
      JSON.stringify(digits.map((l) => l.text)),
    );
    // The whitelist was for that request only.
    assert.deepEqual(
      (await native.lines(image, PSM.SINGLE_BLOCK)).map((l) => l.text),
      lines.map((l) => l.text),
    );
  });

  it('reads a PGM (handed to tesseract as pixels) exactly as the same pixels sent as a PNG (read by leptonica)', async () => {
    // The helper takes the recognizer's PGM sheets without leptonica's reader (a byte at a time), and
    // has libpng store tesseract's in-memory word images uncompressed (D307): the same words, boxes
    // and confidences either way, on a whole sheet of labels as the first reading makes it.
    const crops = await labelCrops('shelf-03');
    const width = Math.max(...crops.map((c) => c.width));
    const height = crops.reduce((s, c) => s + c.height + 8, 0);
    const sheet = Buffer.alloc(width * height, 255);
    let y = 0;
    for (const c of crops) {
      for (let row = 0; row < c.height; row++)
        c.region.copy(sheet, (y + row) * width, row * c.width, (row + 1) * c.width);
      y += c.height + 8;
    }
    const png = await sharp(sheet, { raw: { width, height, channels: 1 } })
      .png()
      .toBuffer();
    const byPgm = await native.lines(pgm(sheet, width, height), PSM.SINGLE_BLOCK);
    assert.ok(byPgm.flatMap((l) => l.words).length > 10);
    assert.deepEqual(byPgm, await native.lines(png, PSM.SINGLE_BLOCK));
  });

  it('a helper that dies fails only the request it was reading, and the next request starts another', async () => {
    const { binary, tessdata } = nativeTesseract();
    const ocr = new NativeOcr(binary, tessdata);
    try {
      const [crop] = await labelCrops('shelf-03');
      const image = pgm(crop!.region, crop!.width, crop!.height);
      const first = await ocr.words(image, 6);
      const pid = ocr.pid!;
      const lost = ocr.words(image, 6);
      process.kill(pid, 'SIGKILL');
      await assert.rejects(lost, /native tesseract exited \(SIGKILL\)/);
      assert.deepEqual(await ocr.words(image, 6), first);
      assert.notEqual(ocr.pid, pid);
    } finally {
      await ocr.close();
    }
  });

  it('a helper abandoned mid-call (its photo was stopped) is killed at once and replaced: its requests fail with the reason, the next reads as before', async () => {
    const { binary, tessdata } = nativeTesseract();
    const ocr = new NativeOcr(binary, tessdata);
    try {
      const photo = await decodePhoto(readFileSync(`${dir}/shelf-03.jpg`));
      const grey = greenChannel(photo);
      // The whole photo as one page (a read of a second or so): abandoned in the same turn it is sent
      // in, it is in flight, since no answer can arrive before.
      const page = pgm(grey.data, grey.width, grey.height);
      const [crop] = await labelCrops('shelf-03');
      const label = pgm(crop!.region, crop!.width, crop!.height);
      const first = await ocr.words(label, 6);
      const pid = ocr.pid!;
      const reading = ocr.words(page, 11);
      const queued = ocr.words(label, 6);
      const reason = new Error('stopped');
      ocr.abandon(reason);
      await assert.rejects(reading, (err) => err === reason);
      await assert.rejects(queued, (err) => err === reason);
      // Its replacement is started at once; the one it replaces is gone (or a zombie until collected).
      assert.ok(ocr.pid && ocr.pid !== pid);
      for (let i = 0; i < 100 && existsSync(`/proc/${pid}`) && !isZombie(pid); i++)
        await new Promise((r) => setTimeout(r, 50));
      assert.ok(!existsSync(`/proc/${pid}`) || isZombie(pid), `helper ${pid} still running`);
      assert.deepEqual(await ocr.words(label, 6), first);
      // An idle helper is left alone.
      const idle = ocr.pid;
      ocr.abandon(reason);
      assert.equal(ocr.pid, idle);
    } finally {
      await ocr.close();
    }
  });

  it('an unreadable image is an error for its request only', async () => {
    await assert.rejects(native.words(Buffer.from('not an image')), /native tesseract: unreadable image/);
    assert.ok((await readShelf(native, 'shelf-03')).some((r) => r.text.length > 0));
  });

  describe('in the recognition pool', () => {
    let pool: RecognitionPool;
    before(() => {
      pool = new RecognitionPool(1, { engine: 'native' });
    });
    after(() => pool.close());

    it('each thread reads with its own helper, at the thread’s lowered priority', async () => {
      const catalogue = JSON.parse(readFileSync(`${dir}/catalogue.json`, 'utf8'));
      const image = readFileSync(`${dir}/shelf-03.jpg`);
      const products = await pool.run({
        image,
        contentType: 'image/jpeg',
        width: 1600,
        height: 1200,
        catalogue,
        runIndex: 0,
      });
      assert.ok(products.some((p) => p.sku));
      // This process's helpers: the main thread's (the tests above) and the pool thread's.
      const { stdout } = await promisify(execFile)('pgrep', ['-P', String(process.pid), '-f', 'tesseract-helper']);
      const nices = stdout
        .trim()
        .split('\n')
        .map((pid) => niceOf(Number(pid)));
      // recognition-pool.ts starts its threads at nice +10 (the kernel stops at 19, reached when the tests
      // themselves run under `nice`); the thread's helper reads at the same priority.
      const own = niceOf(process.pid);
      assert.deepEqual(nices.sort(), [own, Math.min(own + 10, 19)].sort());
    });
  });

  it('a helper whose process is killed ends too: nothing is left reading for nobody', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { OcrPool } from './src/modules/recognition/engines/local/ocr-pool.ts';
         import { existsSync, readFileSync } from 'node:fs';
         const pool = new OcrPool(1, 'fast', 'native');
         await pool.words(readFileSync(process.env.IMAGE));
         console.log('read');
         setInterval(() => {}, 1000);`,
      ],
      { cwd: root, env: { ...process.env, IMAGE: `${dir}/shelf-03.jpg` }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((done) => child.stdout.on('data', (c: Buffer) => c.toString().includes('read') && done()));
    const { stdout } = await promisify(execFile)('pgrep', ['-P', String(child.pid), '-f', 'tesseract-helper']);
    const helper = Number(stdout.trim());
    assert.ok(helper > 0);
    child.kill('SIGKILL');
    // Its stdin closes with its parent: the helper's loop reads the end and returns.
    for (let i = 0; i < 100 && existsSync(`/proc/${helper}`) && !isZombie(helper); i++)
      await new Promise((r) => setTimeout(r, 50));
    assert.ok(!existsSync(`/proc/${helper}`) || isZombie(helper), `helper ${helper} still running`);
  });

  it('OCR_ENGINE=auto reads with the wasm build where the native engine cannot run; native refuses to start', async () => {
    const code = `
      import { OcrPool } from './src/modules/recognition/engines/local/ocr-pool.ts';
      const pool = new OcrPool(1, 'fast', process.env.ENGINE);
      console.log(pool.engine);
      await pool.close();`;
    const auto = await inFreshProcess(code, { ENGINE: 'auto', TESSERACT_HELPER: '/nonexistent/tesseract-helper' });
    assert.equal(auto.stdout.trim(), 'wasm');
    assert.match(auto.stderr, /OCR_ENGINE=auto reads with tesseract's wasm build.*TESSERACT_HELPER=\/nonexistent/);
    await assert.rejects(
      inFreshProcess(code, { ENGINE: 'native', TESSERACT_HELPER: '/nonexistent/tesseract-helper' }),
      /TESSERACT_HELPER=\/nonexistent\/tesseract-helper does not exist/,
    );
    const here = await inFreshProcess(code, { ENGINE: 'auto' });
    assert.equal(here.stdout.trim(), 'native');
  });
});
