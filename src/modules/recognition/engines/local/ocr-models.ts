import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { appRoot } from '../../../../lib/app-root.js';

/** The app's root (src/lib/app-root.ts), for the modules that found it here. */
export { appRoot };

const require = createRequire(import.meta.url);

/**
 * The English OCR models, both on disk (no download, ever). `fast`, the default: tessdata_fast's
 * smaller LSTM, kept in the repository (models/tesseract/eng-fast/README.md says where it comes
 * from), a fifth to a quarter less time per photo, the same results but one held-out label
 * (docs/history/performance-log.md). `best`: the integer `best` model of @tesseract.js-data/eng, the one used
 * before. Kept apart from ocr-pool.ts so the configuration can name them without loading tesseract.
 */
export const OCR_MODELS = ['fast', 'best'] as const;
export type OcrModel = (typeof OCR_MODELS)[number];

/** A model named on a command line or in OCR_MODEL, checked (`what` names the source in the error). */
export function parseOcrModel(value: string, what: string): OcrModel {
  if (!(OCR_MODELS as readonly string[]).includes(value)) throw new Error(`${what}: one of ${OCR_MODELS.join(', ')}`);
  return value as OcrModel;
}

/**
 * Which tesseract reads: `native`, the machine's libtesseract through a helper process
 * (native-tesseract.ts; a quarter to a third less time a photo, the same model), `wasm`, tesseract.js's
 * WebAssembly build in the thread, or `auto` (the default): native where libtesseract and a C++
 * compiler are installed, wasm otherwise. Native reads the `fast` model only.
 */
export const OCR_ENGINES = ['auto', 'native', 'wasm'] as const;
export type OcrEngine = (typeof OCR_ENGINES)[number];

/** An engine named on a command line or in OCR_ENGINE, checked (`what` names the source in the error). */
export function parseOcrEngine(value: string, what: string): OcrEngine {
  if (!(OCR_ENGINES as readonly string[]).includes(value)) throw new Error(`${what}: one of ${OCR_ENGINES.join(', ')}`);
  return value as OcrEngine;
}

/** The directory holding the model's eng.traineddata.gz. */
export function langPath(model: OcrModel): string {
  if (model === 'best') return join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
  return join(appRoot(), 'models', 'tesseract', 'eng-fast');
}
