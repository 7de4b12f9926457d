import { config } from '../../../config.js';
import { createLogger } from '../../../lib/logger.js';
import type { Recognizer, RecognizerFactory } from '../recognizer.js';
import { PooledLocalRecognizer, RecognitionPool } from './local/recognition-pool.js';
import { OpenAiRecognizer } from './openai-recognizer.js';

/**
 * The recognition engines RECOGNIZER can select, made by the process that reads photos (workers/run-worker.ts,
 * a test, a script) and closed by it. Settings are read when an engine is created, so a process running
 * one engine needs none of the other's. `extra`: engines of the caller's own under further names (a
 * test's scripted recognizer).
 */
export class RecognitionEngines {
  /**
   * The local engine's recognition threads (RECOGNITION_THREADS, one per core by default; OCR_MODEL,
   * OCR_ENGINE; RECOGNITION_DEADLINE_MS): one pool, created on first use and shared by every analysis.
   */
  private pool: RecognitionPool | undefined;
  private readonly factories: Record<string, RecognizerFactory>;

  constructor(extra: Record<string, RecognizerFactory> = {}) {
    this.factories = {
      local: () => new PooledLocalRecognizer((this.pool ??= RecognitionEngines.localPool())),
      openai: () => new OpenAiRecognizer(),
      ...extra,
    };
  }

  private static localPool(): RecognitionPool {
    return new RecognitionPool(config().RECOGNITION_THREADS, {
      model: config().OCR_MODEL,
      engine: config().OCR_ENGINE,
      deadlineMs: config().RECOGNITION_DEADLINE_MS,
      logger: createLogger(config().LOG_LEVEL, 'recognition'),
    });
  }

  async create(name: string): Promise<Recognizer> {
    const factory = Object.hasOwn(this.factories, name) ? this.factories[name] : undefined;
    if (!factory) {
      throw new Error(`Unknown recognizer '${name}'. Available: ${Object.keys(this.factories).join(', ')}`);
    }
    return factory();
  }

  /** The local engine's pool, if it was used (to warm its threads up). */
  localPool(): RecognitionPool | undefined {
    return this.pool;
  }

  /** Ends the local engine's threads; a process that used it cannot exit while they run. */
  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = undefined;
  }
}
