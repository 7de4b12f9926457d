// The body of a recognition worker thread (see recognition-pool.ts): one LocalRecognizer with its own
// tesseract worker, kept for the thread's life, so decoding, the pixel loops, barcode decoding and OCR
// of one photo all run off the process's main thread, and each thread reads one photo at a time.
import { readlinkSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { workerData } from 'piscina';
import { RecognitionRejectedError, type RecognizedProduct } from '../../recognizer.js';
import { LocalRecognizer } from './local-recognizer.js';
import { OcrPool } from './ocr-pool.js';
import { PaddleOcr } from './paddle/paddle-ocr.js';
import { readUntilStopped, RecognitionStoppedError, stopRaised, whenStopped } from './photo-stop.js';
import type { Rejected, ThreadData, ThreadTask, WarmedUp, WarmUpTask } from './recognition-pool.js';
import { warmUpInput } from './warm-up.js';

const { model, engine } = workerData as ThreadData;
// The text detector's model is loaded with the warm-up photo (which may not need it) and kept, so no
// photo's recognition deadline is spent loading it.
let detector: Promise<PaddleOcr> | undefined;
const textDetector = () => (detector ??= PaddleOcr.create());
const ocr = new OcrPool(1, model, engine);
const recognizer = new LocalRecognizer({ ocr, text: textDetector });

/** This thread's id in the kernel (Linux; /proc/thread-self names it), -1 where there is none. */
function ownThreadId(): number {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return -1;
  }
}

export default async function recognize(
  task: ThreadTask | WarmUpTask,
): Promise<RecognizedProduct[] | WarmedUp | Rejected> {
  if ('warmUp' in task) {
    const [products] = await Promise.all([recognizer.recognize(await warmUpInput()), textDetector()]);
    return { threadId, products: products.length };
  }
  // The pool times this photo by this thread's CPU time (recognition-pool.ts ThreadClock).
  const { report, stop, ...photo } = task;
  report?.postMessage(ownThreadId());
  report?.close();
  // Structured clone hands a Buffer over as a plain Uint8Array: view the same bytes as a Buffer again.
  const image = Buffer.from(photo.image.buffer, photo.image.byteOffset, photo.image.byteLength);
  // Once the pool stops the photo, the checkpoints leave it off (photo-stop.ts), and OCR it is waiting
  // for ends at once: the helper reading for it is ended and replaced.
  const abandonOcr = () => ocr.abandon(new RecognitionStoppedError());
  const settled = stop ? whenStopped(stop, abandonOcr) : () => {};
  try {
    return await readUntilStopped(stop, () => recognizer.recognize({ ...photo, image }));
  } catch (err) {
    if (err instanceof RecognitionRejectedError)
      return { rejected: err.message, ...(err.code ? { code: err.code } : {}) };
    throw err;
  } finally {
    settled();
    // Stopped at a checkpoint while OCR of it was still queued or reading (a stage run beside another):
    // that OCR is not the next photo's to wait for.
    if (stop && stopRaised(stop)) abandonOcr();
  }
}
