// `npx tsx scripts/eval/ocr-replay.ts OUT [name=value ...]`: sends the tesseract requests ocr-record.ts
// wrote to OUT into one native helper started with those extra tesseract variables, and prints the
// helper's CPU ms (by kind and request number within the photo: 0 the paper sheet, 1 the text
// detector's sheet, 2 the closer ones) and how many answers read the same words as recorded.
// `SHOW=1` prints the answers that differ; `ONLY=regex` keeps the requests whose key matches (D330).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { NativeOcr } from '../../src/modules/recognition/engines/local/native-ocr.js';
import { nativeTesseract } from '../../src/modules/recognition/engines/local/native-tesseract.js';
import { procStat } from '../../src/lib/proc-stat.js';

const [dir, ...vars] = process.argv.slice(2) as [string, ...string[]];
const filter = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
const { binary, tessdata } = nativeTesseract('fast');
const ocr = new NativeOcr(binary, tessdata, ['tessedit_do_invert=0', ...vars]);
await ocr.lines(Buffer.from('P5\n8 8\n255\n' + '\xff'.repeat(64), 'latin1'), 6);
const ids = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => Number(f.split('.')[0]))
  .sort((a, b) => a - b);
const cpu0 = procStat(ocr.pid!)!.cpuMs;
let same = 0,
  diff = 0;
const byKind = new Map<string, number>();
for (const id of ids) {
  const meta = JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8'));
  const img = readFileSync(join(dir, `${id}.img`));
  const key = `${meta.kind}${meta.psm}:${Math.min(meta.seq, 2)}`;
  if (filter && !filter.test(key)) continue;
  const c0 = procStat(ocr.pid!)!.cpuMs;
  const got = meta.kind === 'words' ? await ocr.words(img, meta.psm) : await ocr.lines(img, meta.psm, meta.wl ?? '');
  byKind.set(key, (byKind.get(key) ?? 0) + procStat(ocr.pid!)!.cpuMs - c0);
  const want = meta.kind === 'words' ? meta.words : meta.lines;
  const a = JSON.stringify(want.map((w: { text: string }) => w.text));
  const b = JSON.stringify(got.map((w: { text: string }) => w.text));
  if (a === b) same++;
  else {
    diff++;
    if (process.env.SHOW) console.log(id, a.slice(0, 300), '\n  ->', b.slice(0, 300));
  }
}
console.log(`helper CPU ${procStat(ocr.pid!)!.cpuMs - cpu0} ms; same ${same} diff ${diff}`, Object.fromEntries(byKind));
await ocr.close();
