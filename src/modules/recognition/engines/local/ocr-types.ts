/** What either OCR engine answers (ocr-pool.ts, native-ocr.ts). */
export type Box = { x0: number; y0: number; x1: number; y1: number };
export type OcrWord = { text: string; confidence: number; bbox: Box };
export type OcrLine = { text: string; confidence: number; bbox: Box; words: OcrWord[] };
