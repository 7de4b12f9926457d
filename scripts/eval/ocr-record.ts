// `npx tsx scripts/eval/ocr-record.ts DIR OUT [N]`: reads the first N photos of a shelf set (all by
// default) with the local recognizer in this process and writes every tesseract request it makes to
// OUT: the image as sent (`K.img`) and what came back (`K.json`: photo, its request number, kind, page
// segmentation mode, wall ms, words or lines). `ocr-replay.ts` sends them again (D330).
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalRecognizer } from '../../src/modules/recognition/engines/local/local-recognizer.js';
import { OcrPool } from '../../src/modules/recognition/engines/local/ocr-pool.js';
import { PaddleOcr } from '../../src/modules/recognition/engines/local/paddle/paddle-ocr.js';
import { shelfInput } from '../../test/helpers/shelf-photos.js';

const [dir, out, take] = process.argv.slice(2) as [string, string, string | undefined];
mkdirSync(out, { recursive: true });
const ocr = new OcrPool(1);
let n = 0;
const origWords = ocr.words.bind(ocr);
const origLines = ocr.lines.bind(ocr);
let photo = '';
let seq = 0;
ocr.words = async (image, psm) => {
  const k = n++;
  writeFileSync(join(out, `${k}.img`), image);
  const t = process.hrtime.bigint();
  const r = await origWords(image, psm);
  writeFileSync(
    join(out, `${k}.json`),
    JSON.stringify({ photo, seq: seq++, kind: 'words', psm, ms: Number(process.hrtime.bigint() - t) / 1e6, words: r }),
  );
  return r;
};
ocr.lines = async (image, psm, wl) => {
  const k = n++;
  writeFileSync(join(out, `${k}.img`), image);
  const t = process.hrtime.bigint();
  const r = await origLines(image, psm, wl);
  writeFileSync(
    join(out, `${k}.json`),
    JSON.stringify({
      photo,
      seq: seq++,
      kind: 'lines',
      psm,
      wl,
      ms: Number(process.hrtime.bigint() - t) / 1e6,
      lines: r,
    }),
  );
  return r;
};
let paddle: Promise<PaddleOcr> | undefined;
const recognizer = new LocalRecognizer({ ocr, text: () => (paddle ??= PaddleOcr.create()) });
const catalogue = JSON.parse(readFileSync(join(dir, 'catalogue.json'), 'utf8'));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.jpg'))
  .sort()
  .slice(0, take ? Number(take) : undefined);
for (const f of files) {
  photo = f;
  seq = 0;
  await recognizer.recognize(await shelfInput(readFileSync(join(dir, f)), catalogue));
}
await ocr.close();
await (await paddle)?.close();
