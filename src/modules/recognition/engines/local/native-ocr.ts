import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type { Box, OcrLine, OcrWord } from './ocr-types.js';

type Job = { request: Buffer; resolve: (rows: string) => void; reject: (err: Error) => void };
type Helper = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * One native tesseract process (native/tesseract-helper.cpp), asked one image at a time over its
 * stdin and stdout: the model is loaded once, when the process starts. A process that dies fails
 * the request it was reading (the recognition activity retries the photo) and is started again for
 * the next one.
 */
export class NativeOcr {
  private child: Helper | undefined;
  private queue: Job[] = [];
  private current: Job | undefined;
  private received: Buffer[] = [];
  private receivedBytes = 0;
  private closed = false;

  constructor(
    private readonly binary: string,
    private readonly tessdata: string,
    /** Extra tesseract variables, `name=value`, set after the model is loaded. */
    private readonly variables: string[] = [],
  ) {}

  /** The helper's process id while it runs (tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  private start(): Helper {
    // One thread: the recognition pool already runs one of these per core.
    const child = spawn(this.binary, [this.tessdata, 'eng', ...this.variables], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, OMP_THREAD_LIMIT: '1' },
    });
    // The priority of the thread that reads with it (recognition threads run niced: recognition-pool.ts),
    // so that reading a photo in this process never takes a core from the worker's main thread.
    if (child.pid) {
      try {
        setPriority(child.pid, getPriority());
      } catch {
        // not permitted here: it keeps the priority it was started with
      }
    }
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr = (stderr + s).slice(-2000);
    });
    // A helper ended by abandon() may still have written part of an answer: it is not the next one's.
    child.stdout.on('data', (chunk: Buffer) => {
      if (this.child === child) this.receive(chunk);
    });
    // Writing to a process that has just died fails with EPIPE; its 'exit' or 'error' reports that.
    child.stdin.on('error', () => {});
    const died = (why: string) => {
      if (this.child !== child) return;
      this.child = undefined;
      this.received = [];
      this.receivedBytes = 0;
      const lost = this.current;
      this.current = undefined;
      lost?.reject(new Error(`native tesseract ${why}${stderr ? `: ${stderr.trim().slice(-500)}` : ''}`));
      this.next();
    };
    child.on('error', (err) => died(`could not run (${err.message})`));
    child.on('exit', (code, signal) => died(`exited (${signal ?? `code ${code}`})`));
    return child;
  }

  /** Collects the answer in flight: a 4-byte length, then that many bytes of rows. */
  private receive(chunk: Buffer) {
    this.received.push(chunk);
    this.receivedBytes += chunk.length;
    if (!this.current || this.receivedBytes < 4) return;
    const all = this.received.length === 1 ? this.received[0]! : Buffer.concat(this.received);
    const n = all.readUInt32LE(0);
    if (all.length < 4 + n) {
      this.received = [all];
      return;
    }
    // One request at a time, so nothing follows an answer.
    this.received = [];
    this.receivedBytes = 0;
    const job = this.current;
    this.current = undefined;
    job.resolve(all.subarray(4, 4 + n).toString('utf8'));
    this.next();
  }

  private next() {
    if (this.current || this.closed) return;
    const job = this.queue.shift();
    if (!job) return;
    this.child ??= this.start();
    this.current = job;
    this.child.stdin.write(job.request);
  }

  private run(image: Buffer, psm: number, whitelist: string): Promise<string> {
    if (this.closed) return Promise.reject(new Error('native tesseract: closed'));
    const list = Buffer.from(whitelist, 'utf8');
    const head = Buffer.alloc(12);
    head.writeUInt32LE(psm, 0);
    head.writeUInt32LE(list.length, 4);
    head.writeUInt32LE(image.length, 8);
    return new Promise((resolve, reject) => {
      this.queue.push({ request: Buffer.concat([head, list, image]), resolve, reject });
      this.next();
    });
  }

  /** The helper's rows: "L" (a text line) or "W" (a word of the line before), confidence, box, text. */
  private static parse(rows: string): OcrLine[] {
    const lines: OcrLine[] = [];
    for (const row of rows.split('\n')) {
      if (!row) continue;
      const [kind, conf, x0, y0, x1, y1, ...rest] = row.split('\t');
      if (kind === 'E') throw new Error(`native tesseract: ${conf}`);
      const bbox: Box = { x0: Number(x0), y0: Number(y0), x1: Number(x1), y1: Number(y1) };
      const text = rest.join('\t').trim();
      if (kind === 'L') lines.push({ text, confidence: Number(conf), bbox, words: [] });
      else if (kind === 'W' && text) lines.at(-1)?.words.push({ text, confidence: Number(conf), bbox });
    }
    return lines;
  }

  /** Text lines with their words and boxes (image: PGM, or any format leptonica reads). */
  async lines(image: Buffer, psm: number, whitelist = ''): Promise<OcrLine[]> {
    return NativeOcr.parse(await this.run(image, psm, whitelist)).filter((l) => l.text.length > 0);
  }

  /** Words with their boxes, in reading order. */
  async words(image: Buffer, psm: number): Promise<OcrWord[]> {
    return NativeOcr.parse(await this.run(image, psm, '')).flatMap((l) => l.words);
  }

  /**
   * Fails every request of the photo being read, and ends the helper with SIGKILL if one is in flight,
   * starting its replacement at once (it loads its model while the thread is idle): the recognition
   * pool stopped the photo (past its deadline, or its pass cancelled), and a helper reading for it
   * would otherwise hold the thread's slot as long as its call runs. A child process is safe to kill
   * mid-call, where the thread itself is not (recognition-pool.ts). Nothing happens when it is idle.
   */
  abandon(reason: Error): void {
    for (const job of this.queue.splice(0)) job.reject(reason);
    const child = this.child;
    const lost = this.current;
    if (!child || !lost || this.closed) return;
    // Forgotten first, so its 'exit' (which checks `this.child`) fails nothing more.
    this.child = undefined;
    this.current = undefined;
    this.received = [];
    this.receivedBytes = 0;
    child.kill('SIGKILL');
    lost.reject(reason);
    this.child = this.start();
  }

  /** Ends the helper (closing its stdin ends its loop); requests still queued fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('native tesseract: closed'));
    const child = this.child;
    if (!child) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.stdin.end();
    await exited;
  }
}
