import { existsSync } from 'node:fs';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Logger } from '../../../../lib/logger.js';
import { metrics } from '../../../../lib/metrics.js';
import { procStat } from '../../../../lib/proc-stat.js';
import {
  RecognitionRejectedError,
  type CatalogueEntry,
  type RecognizedProduct,
  type RecognizeInput,
  type Recognizer,
} from '../../recognizer.js';
import type { OcrEngine, OcrModel } from './ocr-models.js';
import { raiseStop, stopFlag, type StopFlag } from './photo-stop.js';

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
  /** Raised by the pool when it refuses the photo: the thread leaves off at its next checkpoint. */
  stop?: StopFlag;
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
  private tid: number | null = null;
  private started = 0;

  /** The wall-time backstop for `deadlineMs`. */
  static backstopMs(deadlineMs: number): number {
    return ThreadClock.perThread ? Math.max(deadlineMs * 6, 120_000) : deadlineMs;
  }

  constructor(deadlineMs: number, overran: () => void) {
    const { port1, port2 } = new MessageChannel();
    this.port = port2;
    this.listener = port1;
    const wall = setTimeout(overran, ThreadClock.backstopMs(deadlineMs));
    this.timers.push(wall);
    if (!ThreadClock.perThread) return;
    port1.once('message', (tid: number) => {
      const started = threadCpuMs(tid);
      if (started === null) return;
      this.tid = tid;
      this.started = started;
      this.timers.push(
        setInterval(() => {
          const now = threadCpuMs(tid);
          if (now !== null && now - started > deadlineMs) overran();
        }, 250),
      );
    });
  }

  /** The thread's processor time on this photo so far, in ms; null where it cannot be read. */
  cpuMs(): number | null {
    const now = this.tid === null ? null : threadCpuMs(this.tid);
    return now === null ? null : now - this.started;
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.listener.close();
  }
}

/** CPU milliseconds a thread of this process has used, null once it is gone. */
function threadCpuMs(tid: number): number | null {
  return procStat(`self/task/${tid}`)?.cpuMs ?? null;
}

/** Read the warm-up photo (warm-up.ts) instead of a task's. */
export type WarmUpTask = { warmUp: true };
/** Which thread read the warm-up photo, and how many products it found there (the one label). */
export type WarmedUp = { threadId: number; products: number };

/**
 * A photo the recognizer refused for good (RecognitionRejectedError): an error class does not survive
 * the structured clone between threads, so the thread answers with this and the pool throws it again.
 */
export type Rejected = { rejected: string; code?: RecognitionRejectedError['code'] };

/** What every thread is started with. */
export type ThreadData = { model: OcrModel; engine: OcrEngine };

// The thread's module next to this one: .ts when running from the sources, .js in the compiled dist/.
const threadFile = new URL(
  import.meta.url.endsWith('.ts') ? './recognition-thread.ts' : './recognition-thread.js',
  import.meta.url,
).href;

/**
 * A thread inherits its process's Node options, tsx's loader among them when the process runs the
 * sources under tsx. A process whose own code was bundled without tsx (`npm test`'s test processes,
 * scripts/lib/own-code-bundles.ts) still runs the thread from its .ts source: that thread gets
 * the loader itself.
 */
function threadExecArgv(filename: string): string[] | undefined {
  // `--import tsx`, or tsx's launcher (`tsx file.ts`), which passes its loader by path.
  const underTsx = process.execArgv.join(' ').includes('tsx');
  // Only the loader: Node 24 refuses some of a test process's own options in a thread's execArgv
  // (ERR_WORKER_INVALID_EXEC_ARGV), and tsx turns source maps on in the thread itself.
  return filename.endsWith('.ts') && !underTsx ? ['--import', 'tsx'] : undefined;
}

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
  private readonly lostAfterMs: number;
  private readonly logger: Logger | undefined;
  /** Photos refused whose thread has not left off yet, and those of them past the lost-slot backstop. */
  private stopping = 0;
  private lost = 0;
  /** Photos on a thread now, each with what stops it. */
  private readonly reading = new Map<Promise<unknown>, (err: Error) => void>();

  /**
   * `deadlineMs`: the longest one photo may take on its thread. One that takes longer is not an
   * ordinary photo (an ordinary one takes a second or two; RECOGNITION_DEADLINE_MS): it is refused as
   * IMAGE_TOO_COMPLEX and its thread told to leave it off (photo-stop.ts), which it does at the end of
   * the stage it is in, so no image holds a core for much longer than that.
   */
  constructor(
    readonly size: number,
    opts: {
      model?: OcrModel;
      engine?: OcrEngine;
      /** RECOGNITION_DEADLINE_MS; 30 s unless given. */
      deadlineMs?: number;
      /**
       * How long a stopped photo's thread may take to leave off before its slot is counted lost
       * (logged, and the shelf_recognition_lost_slots gauge): the wall-time backstop unless given.
       */
      lostAfterMs?: number;
      /** Where a thread that does not stop is reported. */
      logger?: Logger;
      /** The module each thread runs: the recognizer's own unless a test gives another. */
      threadModule?: string;
    } = {},
  ) {
    this.deadlineMs = opts.deadlineMs ?? 30_000;
    this.lostAfterMs = opts.lostAfterMs ?? ThreadClock.backstopMs(this.deadlineMs);
    this.logger = opts.logger;
    const filename = opts.threadModule ?? threadFile;
    this.piscina = new Piscina({
      filename,
      execArgv: threadExecArgv(filename),
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
    const flag = stopFlag();
    let refuse!: (err: Error) => void;
    const refused = new Promise<never>((_, reject) => (refuse = reject));
    /** Set once the photo is stopped: when (wall), the thread's CPU time on it then, and the lost-slot timer. */
    let stopped: { at: number; cpuMs: number | null; lostTimer: NodeJS.Timeout; lost: boolean } | undefined;
    // The photo is refused at once. Its thread is not ended but told to leave off (ending a thread while
    // a native addon's call is in flight, a sharp or onnxruntime one, aborts the whole process on Node
    // 24: "terminate called after throwing an instance of 'Napi::Error'"), which it does at its next
    // checkpoint; the slot is held until then.
    const stop = (err: Error) => {
      refuse(err);
      if (stopped) return;
      raiseStop(flag);
      this.stopping++;
      const at = Date.now();
      const lostTimer = setTimeout(() => {
        stopped!.lost = true;
        this.lost++;
        metrics.recognitionLostSlots.inc();
        this.logger?.error(
          { afterMs: Date.now() - at, threadCpuMs: clock.cpuMs(), lostSlots: this.lost, threads: this.size },
          'a recognition thread told to stop a photo has not stopped; its slot stays taken until it does',
        );
      }, this.lostAfterMs);
      stopped = { at, cpuMs: clock.cpuMs(), lostTimer, lost: false };
    };
    const clock: ThreadClock = new ThreadClock(this.deadlineMs, () =>
      stop(
        new RecognitionRejectedError(
          `The image took more than ${Math.round(this.deadlineMs / 1000)} s of processor time to read, far more than a shelf photo does; it was refused.`,
          'IMAGE_TOO_COMPLEX',
        ),
      ),
    );
    // A cancelled pass (its activity was cancelled) is stopped the same way: ending its thread would
    // risk the same abort.
    const cancel = () => stop(signal!.reason ?? new Error('recognition cancelled'));
    signal?.addEventListener('abort', cancel, { once: true });
    if (signal?.aborted) cancel();
    const reading = this.piscina
      .run({ ...task, report: clock.port, stop: flag }, { transferList: [clock.port] })
      .then((result) => {
        if ('rejected' in (result as Rejected)) {
          const { rejected, code } = result as Rejected;
          throw new RecognitionRejectedError(rejected, code);
        }
        return result as RecognizedProduct[];
      })
      .finally(() => {
        signal?.removeEventListener('abort', cancel);
        if (stopped) {
          clearTimeout(stopped.lostTimer);
          this.stopping--;
          if (stopped.lost) {
            this.lost--;
            metrics.recognitionLostSlots.dec();
          }
          // How long the thread took to leave off: the cost of the stage it was in.
          const cpuMs = clock.cpuMs();
          this.logger?.[stopped.lost ? 'warn' : 'info'](
            {
              afterMs: Date.now() - stopped.at,
              threadCpuAfterMs: cpuMs === null || stopped.cpuMs === null ? null : cpuMs - stopped.cpuMs,
            },
            stopped.lost ? 'a recognition thread counted lost has stopped' : 'a stopped photo has left its thread',
          );
        }
        clock.stop();
        this.reading.delete(reading);
        this.release();
      });
    reading.catch(() => {});
    this.reading.set(reading, stop);
    return Promise.race([reading, refused]);
  }

  /**
   * Every thread reads the warm-up photo once (one task per thread: each takes one at a time), so
   * the first real photos do not pay for starting the OCR engine. A photo sent meanwhile waits for a
   * thread as usual. The worker process calls it at start (workers/run-worker.ts).
   */
  async warm(): Promise<WarmedUp[]> {
    return Promise.all(
      Array.from({ length: this.size }, async () => {
        await this.acquire();
        // Nothing stops a warm-up photo (it is small), but close() waits for it like any other.
        const reading = this.piscina.run({ warmUp: true });
        this.reading.set(reading, () => {});
        try {
          return (await reading) as WarmedUp;
        } finally {
          this.reading.delete(reading);
          this.release();
        }
      }),
    );
  }

  /**
   * Photos being read (at most one a thread), photos waiting for a free thread, photos refused whose
   * thread has not yet left off (their slots are among `running`), and of those, the ones past the
   * lost-slot backstop.
   */
  stats(): { running: number; queued: number; stopping: number; lost: number } {
    return { running: this.running, queued: this.waiting.length, stopping: this.stopping, lost: this.lost };
  }

  /**
   * Stops the photos being read, waits for their threads to leave off, then ends the threads: ending
   * one mid-way through a native call would abort the process (run()), at shutdown as at any time.
   */
  async close(): Promise<void> {
    for (const stop of this.reading.values()) stop(new Error('the recognition pool was closed'));
    await Promise.allSettled(this.reading.keys());
    await this.piscina.destroy();
  }
}

/** The local recognizer as the worker process sees it: every photo goes to the pool. */
export class PooledLocalRecognizer implements Recognizer {
  readonly name = 'local';
  /** Each thread decodes the photo in full first (decodePhoto): the fetch leaves that decode to it. */
  readonly decodesEveryPhoto = true;

  constructor(private readonly pool: RecognitionPool) {}

  recognize(input: RecognizeInput): Promise<RecognizedProduct[]> {
    return this.pool.run(input);
  }
}
