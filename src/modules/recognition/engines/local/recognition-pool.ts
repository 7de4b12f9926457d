import { existsSync, readFileSync } from 'node:fs';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import {
  RecognitionRejectedError,
  type CatalogueEntry,
  type RecognizedProduct,
  type RecognizeInput,
  type Recognizer,
} from '../../recognizer.js';
import type { OcrEngine, OcrModel } from './ocr-models.js';

/** What a recognition thread is given: the input without its AbortSignal (which cannot cross threads). */
export type ThreadTask = {
  image: Uint8Array;
  contentType: string;
  width: number;
  height: number;
  catalogue: CatalogueEntry[];
  runIndex: number;
  /** Where the thread says which it is as it starts (ThreadClock); absent for a warm-up photo. */
  report?: MessagePort;
};

/**
 * The deadline of one photo, in processor time of the thread reading it where Linux tells it (the
 * thread posts its id on `port` as it starts; its CPU time is read from /proc every quarter second),
 * so a photo is not refused for waiting on a busy machine; in wall time where there is no /proc.
 * Wall time also refuses any photo at six times the deadline (two minutes at least, as a loaded
 * machine stretches wall time): work a thread hands to native code (libvips, onnxruntime, the
 * tesseract helper) is not its own CPU time.
 */
class ThreadClock {
  private static readonly perThread = existsSync('/proc/thread-self');
  readonly port: MessagePort;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly listener: MessagePort;

  constructor(deadlineMs: number, overran: () => void) {
    const { port1, port2 } = new MessageChannel();
    this.port = port2;
    this.listener = port1;
    const wall = setTimeout(overran, ThreadClock.perThread ? Math.max(deadlineMs * 6, 120_000) : deadlineMs);
    this.timers.push(wall);
    if (!ThreadClock.perThread) return;
    port1.once('message', (tid: number) => {
      const started = threadCpuMs(tid);
      if (started === null) return;
      this.timers.push(
        setInterval(() => {
          const now = threadCpuMs(tid);
          if (now !== null && now - started > deadlineMs) overran();
        }, 250),
      );
    });
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.listener.close();
  }
}

/** CPU milliseconds a thread of this process has used (Linux, 100 ticks a second), null once it is gone. */
function threadCpuMs(tid: number): number | null {
  try {
    const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Read the warm-up photo (warm-up.ts) instead of a task's. */
export type WarmUpTask = { warmUp: true };
/** Which thread read the warm-up photo, and how many products it found there (the one label). */
export type WarmedUp = { threadId: number; products: number };

/**
 * A photo the recognizer refused for good (RecognitionRejectedError): an error class does not survive
 * the structured clone between threads, so the thread answers with this and the pool throws it again.
 */
export type Rejected = { rejected: string };

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
  private readonly piscina: Piscina<ThreadTask | WarmUpTask, RecognizedProduct[] | WarmedUp | Rejected>;
  /** Photos on a thread now; the rest wait here (not in piscina's queue) so a deadline counts reading time only. */
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly deadlineMs: number;

  /**
   * `deadlineMs`: the longest one photo may take on its thread. One that takes longer is not an
   * ordinary photo (an ordinary one takes a second or two; RECOGNITION_DEADLINE_MS): its thread is
   * ended (piscina starts a fresh one) and the photo refused as IMAGE_TOO_COMPLEX, so no image can hold
   * a core for longer than that.
   */
  constructor(
    readonly size: number,
    opts: {
      model?: OcrModel;
      engine?: OcrEngine;
      /** RECOGNITION_DEADLINE_MS; 30 s unless given. */
      deadlineMs?: number;
      /** The module each thread runs: the recognizer's own unless a test gives another. */
      threadModule?: string;
    } = {},
  ) {
    this.deadlineMs = opts.deadlineMs ?? 30_000;
    this.piscina = new Piscina({
      filename: opts.threadModule ?? threadFile,
      workerData: { model: opts.model ?? 'fast', engine: opts.engine ?? 'auto' } satisfies ThreadData,
      minThreads: size,
      maxThreads: size,
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Below the main thread's priority (Linux: per thread, inherited by each thread's tesseract
      // worker): with every core reading photos, a workflow task or a delivery still gets a core at once.
      niceIncrement: NICE,
    });
  }

  /** A thread of our own: at once when one is free, else when one is handed on (FIFO). */
  private async acquire(signal?: AbortSignal): Promise<void> {
    if (this.running < this.size && this.waiting.length === 0) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const granted = () => {
        signal?.removeEventListener('abort', cancelled);
        resolve();
      };
      const cancelled = () => {
        const at = this.waiting.indexOf(granted);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal!.reason ?? new Error('recognition cancelled'));
      };
      if (signal?.aborted) return cancelled();
      signal?.addEventListener('abort', cancelled, { once: true });
      this.waiting.push(granted);
    });
  }

  /** The slot goes straight to the next photo waiting, if any (so the count never overshoots). */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  async run(input: RecognizeInput): Promise<RecognizedProduct[]> {
    const { signal, ...task } = input;
    await this.acquire(signal);
    const stop = new AbortController();
    let overran!: () => void;
    const deadline = new Promise<never>((_, reject) => {
      overran = () =>
        reject(
          new RecognitionRejectedError(
            `The image took more than ${Math.round(this.deadlineMs / 1000)} s of processor time to read, far more than a shelf photo does; it was refused.`,
            'IMAGE_TOO_COMPLEX',
          ),
        );
    });
    const clock = new ThreadClock(this.deadlineMs, () => overran());
    // A cancelled pass (its activity was cancelled) ends its thread; the pool starts a fresh one.
    const cancel = () => stop.abort(signal!.reason);
    signal?.addEventListener('abort', cancel, { once: true });
    const reading = this.piscina
      .run({ ...task, report: clock.port }, { signal: stop.signal, transferList: [clock.port] })
      .then(
        async (result) => {
          if ('rejected' in (result as Rejected)) throw new RecognitionRejectedError((result as Rejected).rejected);
          return result as RecognizedProduct[];
        },
        async (err: unknown) => {
          if (stop.signal.aborted) await this.warmReplacement();
          throw err;
        },
      )
      .finally(() => {
        // The slot is held until the thread is free again, past a deadline too (see `overran` below).
        clock.stop();
        signal?.removeEventListener('abort', cancel);
        this.release();
      });
    // Past the deadline the photo is refused at once, and its thread finishes what it has (bounded by
    // the image limits: at most 4096 px a side) before taking another photo. The thread is not ended:
    // ending a thread while a native addon's work is in flight (a sharp or onnxruntime call) aborts the
    // whole process on Node 24 ("terminate called after throwing an instance of 'Napi::Error'").
    reading.catch(() => {});
    return Promise.race([reading, deadline]);
  }

  /**
   * The thread an aborted photo ended has been replaced by a fresh one, whose OCR engines load on its
   * first photo: it reads the warm-up photo first, in the aborted photo's slot (so it is the one idle
   * thread), and the next photo's deadline is not spent loading models.
   */
  private async warmReplacement(): Promise<void> {
    try {
      await this.piscina.run({ warmUp: true });
    } catch {
      // A thread that cannot warm up fails the next photo itself, with its own error.
    }
  }

  /**
   * Every thread reads the warm-up photo once (one task per thread: each takes one at a time), so
   * the first real photos do not pay for starting the OCR engine. A photo sent meanwhile waits for a
   * thread as usual. The worker process calls it at start (workers/main.ts).
   */
  async warm(): Promise<WarmedUp[]> {
    return Promise.all(
      Array.from({ length: this.size }, async () => {
        await this.acquire();
        try {
          return (await this.piscina.run({ warmUp: true })) as WarmedUp;
        } finally {
          this.release();
        }
      }),
    );
  }

  /** Photos being read (at most one a thread), and photos waiting for a free thread. */
  stats(): { running: number; queued: number } {
    return { running: this.running, queued: this.waiting.length };
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
