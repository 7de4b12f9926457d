import { config } from '../../../config.js';
import { createLogger } from '../../../lib/logger.js';
import { registerRecognizer } from '../recognizer.js';
import { PooledLocalRecognizer, RecognitionPool } from './local/recognition-pool.js';

// One pool of recognition threads for the whole process (RECOGNITION_THREADS, one per core by
// default; OCR_MODEL, OCR_ENGINE; RECOGNITION_DEADLINE_MS), created on first use and shared by every analysis.
let pool: RecognitionPool | undefined;
registerRecognizer(
  'local',
  () =>
    new PooledLocalRecognizer(
      (pool ??= new RecognitionPool(config().RECOGNITION_THREADS, {
        model: config().OCR_MODEL,
        engine: config().OCR_ENGINE,
        deadlineMs: config().RECOGNITION_DEADLINE_MS,
        logger: createLogger(config().LOG_LEVEL, 'recognition'),
      })),
    ),
);

/** The process's recognition pool, if the local recognizer was used (for tests and the benchmark). */
export function localRecognitionPool(): RecognitionPool | undefined {
  return pool;
}

/** Ends the pool's threads; a process that used the recognizer cannot exit while they run. */
export async function closeLocalRecognizer(): Promise<void> {
  await pool?.close();
  pool = undefined;
}
