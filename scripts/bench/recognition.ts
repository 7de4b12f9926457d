// `[OCR_MODEL=best] [OCR_ENGINE=auto|native|wasm] npm run bench:recognition -- [--images test/fixtures/synthetic-shelves] [--photos 24]`
// Recognition throughput of the `local` recognizer's thread pool, in one run: the same photos read
// by a pool of one thread in a process pinned to one core (`taskset -c 0`), then by a pool of one
// thread per core in an unpinned process kept full (two photos per thread in flight). Prints photos
// per second on one core and on all cores, seconds per photo, each process's peak memory and the
// scaling efficiency, all cores ÷ (cores × one core). Memory counts the native OCR engine's helper
// processes (one per thread) with the process. Each pool is warmed up first (every thread
// reads a photo, untimed: starting tesseract takes a second). Prints numbers; asserts nothing.
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadShelfPhotos } from '../../test/helpers/shelf-photos.js';
import { parseOcrEngine, parseOcrModel } from '../../src/modules/recognition/engines/local/ocr-models.js';
import { resolveOcrEngine } from '../../src/modules/recognition/engines/local/native-tesseract.js';
import { childProcesses } from '../../test/helpers/child-processes.js';
import { RecognitionPool } from '../../src/modules/recognition/engines/local/recognition-pool.js';

const { values } = parseArgs({
  options: {
    images: { type: 'string', default: 'test/fixtures/synthetic-shelves' },
    photos: { type: 'string', default: '24' },
    child: { type: 'boolean', default: false },
    threads: { type: 'string' },
  },
});

// The OCR model, as the worker takes it (OCR_MODEL: fast, the default, or best); children inherit it.
const model = parseOcrModel(process.env.OCR_MODEL ?? 'fast', 'OCR_MODEL');
// The OCR engine (OCR_ENGINE: auto, the default, native or wasm), decided here so the figures name it.
const engine = resolveOcrEngine(parseOcrEngine(process.env.OCR_ENGINE ?? 'auto', 'OCR_ENGINE'), model);
process.env.OCR_ENGINE = engine;

type Figures = {
  threads: number;
  photos: number;
  seconds: number;
  secondsPerPhoto: number;
  /** CPU of the timed photos, this process's threads and its OCR helpers together, a photo. */
  cpuMsPerPhoto: number;
  peakRssMb: number;
};

/** CPU ms so far of this process (every thread) and its child processes (the OCR helpers, as read). */
const cpuMsSoFar = (helpers = childProcesses()) => {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000 + helpers.cpuSeconds * 1000;
};

/** One measurement, in this process: `threads` threads kept busy with `photos` photos. */
async function measure(threads: number, count: number): Promise<Figures> {
  const photos = await loadShelfPhotos(resolve(values.images!));
  const pool = new RecognitionPool(threads, { model, engine });
  await Promise.all(Array.from({ length: threads }, (_, i) => pool.run(photos[i % photos.length]!)));
  let next = 0;
  const latencies: number[] = [];
  const cpuBefore = cpuMsSoFar();
  const started = performance.now();
  // Two photos per thread in flight: a thread never waits for the next photo to be posted.
  await Promise.all(
    Array.from({ length: Math.min(count, threads * 2) }, async () => {
      for (let i = next++; i < count; i = next++) {
        const t = performance.now();
        await pool.run(photos[i % photos.length]!);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  // The helpers read once, for their CPU and their peak memory.
  const helpersAfter = childProcesses();
  const cpuMs = cpuMsSoFar(helpersAfter) - cpuBefore;
  const helpers = helpersAfter.peakRssMb;
  await pool.close();
  return {
    threads,
    photos: count,
    seconds,
    // Per photo of thread time: wall time × threads ÷ photos (a photo waiting in the queue is not counted).
    secondsPerPhoto: (seconds * threads) / count,
    cpuMsPerPhoto: Math.round(cpuMs / count),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) + helpers,
  };
}

if (values.child) {
  const figures = await measure(Number(values.threads), Number(values.photos));
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
}

/** This script again, in a child process (optionally pinned to core 0), reporting its figures as JSON. */
function child(threads: number, pinned: boolean): Promise<Figures> {
  const script = fileURLToPath(import.meta.url);
  const args = [...process.execArgv, script, '--child', '--threads', String(threads), '--images', values.images!];
  args.push('--photos', values.photos!);
  const [cmd, argv] = pinned ? ['taskset', ['-c', '0', process.execPath, ...args]] : [process.execPath, args];
  return new Promise((resolvePromise, reject) => {
    const p = spawn(cmd, argv as string[], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.on('error', reject);
    p.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1);
      if (code !== 0 || !line) reject(new Error(`child exited ${code}: ${out}`));
      else resolvePromise(JSON.parse(line) as Figures);
    });
  });
}

const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
if (!hasTaskset) console.warn('taskset not found: the one-core run is one thread, not pinned to one core');
const cores = availableParallelism();
const one = await child(1, hasTaskset);
const all = await child(cores, false);
const perSecond = (f: Figures) => f.photos / f.seconds;
const efficiency = perSecond(all) / (cores * perSecond(one));
const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;
console.table([
  {
    run: `one core (1 thread${hasTaskset ? ', taskset -c 0' : ''})`,
    photos: one.photos,
    'photos/s': round(perSecond(one)),
    's/photo': round(one.secondsPerPhoto),
    'peak RSS MB': one.peakRssMb,
  },
  {
    run: `all ${cores} cores (${cores} threads)`,
    photos: all.photos,
    'photos/s': round(perSecond(all)),
    's/photo': round(all.secondsPerPhoto),
    'peak RSS MB': all.peakRssMb,
  },
]);
console.log(
  JSON.stringify({
    engine,
    cores,
    oneCore: {
      photosPerSecond: round(perSecond(one), 3),
      secondsPerPhoto: round(one.secondsPerPhoto, 3),
      peakRssMb: one.peakRssMb,
    },
    allCores: {
      photosPerSecond: round(perSecond(all), 3),
      secondsPerPhoto: round(all.secondsPerPhoto, 3),
      peakRssMb: all.peakRssMb,
    },
    scalingEfficiency: round(efficiency, 3),
  }),
);
