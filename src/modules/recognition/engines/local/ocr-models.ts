/**
 * The English OCR models, both on disk (no download, ever). `fast`, the default: tessdata_fast's
 * smaller LSTM, kept in the repository (models/tesseract/eng-fast/README.md says where it comes
 * from), a fifth to a quarter less time per photo, the same results but one held-out label
 * (docs/performance.md). `best`: the integer `best` model of @tesseract.js-data/eng, the one used
 * before. Kept apart from ocr-pool.ts so the configuration can name them without loading tesseract.
 */
export const OCR_MODELS = ['fast', 'best'] as const;
export type OcrModel = (typeof OCR_MODELS)[number];

/** A model named on a command line or in OCR_MODEL, checked (`what` names the source in the error). */
export function parseOcrModel(value: string, what: string): OcrModel {
  if (!(OCR_MODELS as readonly string[]).includes(value)) throw new Error(`${what}: one of ${OCR_MODELS.join(', ')}`);
  return value as OcrModel;
}
