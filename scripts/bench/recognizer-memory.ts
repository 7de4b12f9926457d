// `npm run bench:memory -- [--images 1000] [--every 100]`
// Runs the `local` recognizer over the committed synthetic shelves again and again in one process
// (as a worker does) and prints its resident memory as it goes: the OCR pool is created once and
// must not grow with the number of images read. Prints numbers; asserts nothing.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { RecognitionEngines } from '../../src/modules/recognition/engines/index.js';
import { loadShelfPhotos } from '../../test/helpers/shelf-photos.js';
import { runSecretsKey } from '../lib/run-secrets-key.js';

const { values } = parseArgs({
  options: { images: { type: 'string', default: '1000' }, every: { type: 'string', default: '100' } },
});
const total = Number(values.images);
const every = Number(values.every);
const photos = await loadShelfPhotos(resolve(import.meta.dirname, '../../test/fixtures/synthetic-shelves'));
runSecretsKey(); // the configuration wants one, though nothing is sealed here
const engines = new RecognitionEngines();
const recognizer = await engines.create('local');
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
let peak = 0;
const started = performance.now();
console.log('images  rss MB  heap MB  seconds');
for (let i = 1; i <= total; i++) {
  const photo = photos[(i - 1) % photos.length]!;
  await recognizer.recognize(photo);
  const { rss, heapUsed } = process.memoryUsage();
  peak = Math.max(peak, rss);
  if (i === 1 || i % every === 0)
    console.log(
      `${String(i).padStart(6)}  ${String(mb(rss)).padStart(6)}  ${String(mb(heapUsed)).padStart(7)}  ${((performance.now() - started) / 1000).toFixed(0).padStart(7)}`,
    );
}
console.log(`peak rss ${mb(peak)} MB over ${total} images`);
await engines.close();
