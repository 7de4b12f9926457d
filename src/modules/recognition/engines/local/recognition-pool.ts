import { Piscina } from 'piscina';
import type { CatalogueEntry, RecognizedProduct, RecognizeInput, Recognizer } from '../../recognizer.js';
import type { OcrEngine, OcrModel } from './ocr-models.js';

/** What a recognition thread is given: the input without its AbortSignal (which cannot cross threads). */
export type ThreadTask = {
  image: Uint8Array;
  contentType: string;
  width: number;
  height: number;
  catalogue: CatalogueEntry[];
  runIndex: number;
};

/** Read the warm-up photo (warm-up.ts) instead of a task's. */
export type WarmUpTask = { warmUp: true };
/** Which thread read the warm-up photo, and how many products it found there (the one label). */
export type WarmedUp = { threadId: number; products: number };

/** What every thread is started with. */
export type ThreadData = { model: OcrModel; engine: OcrEngine };

// The thread's module next to this one: .ts when running from the sources under tsx (whose loader the
// threads inherit through execArgv), .js in the compiled dist/.
const threadFile = new URL(
  import.meta.url.endsWith('.ts') ? './recognition-thread.ts' : './recognition-thread.js',
  import.meta.url,
).href;

/** How far below normal priority recognition threads run (0 to 19; where the OS allows it). */
const NICE = 10;

/**
 * A fixed pool of worker threads, each running the whole local recognizer (decoding, pixel work,
 * barcodes and its own tesseract worker) on one photo at a time. The process's main thread, which
 * also runs the workflow and delivery workers, only posts the photo and awaits the products, so its
 * event loop never waits on recognition; and with one thread per core every core reads a photo.
 * Threads are started with the pool and kept: each holds a tesseract worker that takes a second and
 * tens of MB to start.
 */
export class RecognitionPool {
  private readonly piscina: Piscina<ThreadTask | WarmUpTask, RecognizedProduct[] | WarmedUp>;

  constructor(
    readonly size: number,
    model: OcrModel = 'fast',
    engine: OcrEngine = 'auto',
  ) {
    this.piscina = new Piscina({
      filename: threadFile,
      workerData: { model, engine } satisfies ThreadData,
      minThreads: size,
      maxThreads: size,
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Below the main thread's priority (Linux: per thread, inherited by each thread's tesseract
      // worker): with every core reading photos, a workflow task or a delivery still gets a core at once.
      niceIncrement: NICE,
    });
  }

  private inFlight = 0;

  async run(input: RecognizeInput): Promise<RecognizedProduct[]> {
    const { signal, ...task } = input;
    this.inFlight++;
    try {
      // A cancelled pass (its activity was cancelled) ends its thread; the pool starts a fresh one.
      return (await this.piscina.run(task, signal ? { signal } : {})) as RecognizedProduct[];
    } finally {
      this.inFlight--;
    }
  }

  /**
   * Every thread reads the warm-up photo once (one task per thread: each takes one at a time), so
   * the first real photos do not pay for starting the OCR engine. A photo sent meanwhile waits for a
   * thread as usual. The worker process calls it at start (workers/main.ts).
   */
  async warm(): Promise<WarmedUp[]> {
    return (await Promise.all(
      Array.from({ length: this.size }, () => this.piscina.run({ warmUp: true })),
    )) as WarmedUp[];
  }

  /** Photos being read (at most one a thread), and photos waiting for a free thread. */
  stats(): { running: number; queued: number } {
    return { running: Math.min(this.inFlight, this.size), queued: Math.max(0, this.inFlight - this.size) };
  }

  close(): Promise<void> {
    return this.piscina.destroy();
  }
}

/** The local recognizer as the worker process sees it: every photo goes to the pool. */
export class PooledLocalRecognizer implements Recognizer {
  readonly name = 'local';

  constructor(private readonly pool: RecognitionPool) {}

  recognize(input: RecognizeInput): Promise<RecognizedProduct[]> {
    return this.pool.run(input);
  }
}
