// The body of a recognition worker thread (see recognition-pool.ts): one LocalRecognizer with its own
// tesseract worker, kept for the thread's life, so decoding, the pixel loops, barcode decoding and OCR
// of one photo all run off the process's main thread, and each thread reads one photo at a time.
import { threadId } from 'node:worker_threads';
import { workerData } from 'piscina';
import type { RecognizedProduct } from '../../recognizer.js';
import { LocalRecognizer } from './local-recognizer.js';
import { OcrPool } from './ocr-pool.js';
import { PaddleOcr } from './paddle/paddle-ocr.js';
import type { ThreadData, ThreadTask, WarmedUp, WarmUpTask } from './recognition-pool.js';
import { warmUpInput } from './warm-up.js';

const { model, engine } = workerData as ThreadData;
// The text detector's model is loaded on the thread's first photo (the warm-up one) and kept.
let detector: Promise<PaddleOcr> | undefined;
const recognizer = new LocalRecognizer({
  ocr: new OcrPool(1, model, engine),
  text: () => (detector ??= PaddleOcr.create()),
});

export default async function recognize(task: ThreadTask | WarmUpTask): Promise<RecognizedProduct[] | WarmedUp> {
  if ('warmUp' in task) return { threadId, products: (await recognizer.recognize(await warmUpInput())).length };
  // Structured clone hands a Buffer over as a plain Uint8Array: view the same bytes as a Buffer again.
  const image = Buffer.from(task.image.buffer, task.image.byteOffset, task.image.byteLength);
  return recognizer.recognize({ ...task, image });
}
