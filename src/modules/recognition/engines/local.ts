import { z } from 'zod';
import { registerRecognizer } from '../recognizer.js';
import { LocalRecognizer } from './local/local-recognizer.js';
import { OcrPool } from './local/ocr-pool.js';

const env = z.object({ LOCAL_OCR_WORKERS: z.coerce.number().int().min(1).max(8).default(1) }).parse(process.env);

// One OCR pool for the whole process, created on first use and shared by every analysis.
let pool: OcrPool | undefined;
registerRecognizer('local', () => new LocalRecognizer({ ocr: (pool ??= new OcrPool(env.LOCAL_OCR_WORKERS)) }));

/** Ends the pool's worker threads; a process that used the recognizer cannot exit while they run. */
export async function closeLocalRecognizer(): Promise<void> {
  await pool?.close();
  pool = undefined;
}
