import { createScheduler, createWorker, OEM, PSM, type Scheduler } from 'tesseract.js';
import { langPath, type OcrEngine, type OcrModel } from './ocr-models.js';
import { NativeOcr } from './native-ocr.js';
import { nativeTesseract, NativeTesseractUnavailable } from './native-tesseract.js';

import type { Box, OcrLine, OcrWord } from './ocr-types.js';

export type { Box, OcrLine, OcrWord } from './ocr-types.js';

/**
 * 8-bit grey pixels as a binary PGM file, the form OCR is handed images in: leptonica reads it as it
 * is, where a PNG costs an encode here and a decode there (about a third of a first-pass sheet's OCR
 * time on this machine for the same pixels and the same words).
 */
export function pgm(pixels: Buffer, width: number, height: number): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii'), pixels.subarray(0, width * height)]);
}

/**
 * One long-lived pool of tesseract workers per process. Creating a worker costs a second and
 * tens of MB, so images share the pool instead of each starting their own.
 */
export class OcrPool {
  private scheduler: Scheduler | undefined;
  private starting: Promise<Scheduler> | undefined;
  /** The native engine's process, when it reads (`engine` says which does). */
  private readonly native: NativeOcr | undefined;
  readonly engine: 'native' | 'wasm';

  constructor(
    private readonly size: number,
    private readonly model: OcrModel = 'fast',
    engine: OcrEngine = 'auto',
  ) {
    this.native = engine === 'wasm' ? undefined : OcrPool.nativeFor(model, engine);
    this.engine = this.native ? 'native' : 'wasm';
  }

  /** The native engine for OCR_ENGINE=native or auto; auto reads with wasm where native cannot run. */
  private static nativeFor(model: OcrModel, engine: 'native' | 'auto'): NativeOcr | undefined {
    try {
      const { binary, tessdata } = nativeTesseract(model);
      // Without tesseract's second, inverted reading of lines it is unsure of: labels are dark print on
      // light paper, and the pass cost ~5 % of the OCR time for the same results on every set
      // (docs/history/performance-log.md).
      return new NativeOcr(binary, tessdata, ['tessedit_do_invert=0']);
    } catch (err) {
      if (engine === 'native' || !(err instanceof NativeTesseractUnavailable)) throw err;
      process.emitWarning(
        `OCR_ENGINE=auto reads with tesseract's wasm build: the native engine cannot run (${err.message})`,
        {
          code: 'SHELF_OCR_WASM',
        },
      );
      return undefined;
    }
  }

  private async start(): Promise<Scheduler> {
    const scheduler = createScheduler();
    for (let i = 0; i < this.size; i++) {
      // Without the word lists: shelf text is brands, sizes and prices, not dictionary English, and
      // the LSTM decodes faster without them.
      const worker = await createWorker(
        'eng',
        OEM.LSTM_ONLY,
        { langPath: langPath(this.model), cacheMethod: 'none', gzip: true },
        { load_system_dawg: '0', load_freq_dawg: '0' } as never,
      );
      await worker.setParameters({ tessedit_pageseg_mode: PSM.SPARSE_TEXT, preserve_interword_spaces: '1' });
      scheduler.addWorker(worker);
    }
    this.scheduler = scheduler;
    return scheduler;
  }

  private ready(): Promise<Scheduler> {
    if (this.scheduler) return Promise.resolve(this.scheduler);
    this.starting ??= this.start();
    return this.starting;
  }

  /** Text lines with their boxes, in the coordinates of the image given. */
  async lines(image: Buffer, psm: PSM = PSM.SPARSE_TEXT, whitelist = ''): Promise<OcrLine[]> {
    if (this.native) return this.native.lines(image, Number(psm), whitelist);
    const scheduler = await this.ready();
    const { data } = (await scheduler.addJob(
      'recognize',
      image,
      { tessedit_pageseg_mode: psm, tessedit_char_whitelist: whitelist } as never,
      { blocks: true, text: false } as never,
    )) as {
      data: {
        blocks:
          | {
              paragraphs: {
                lines: {
                  text: string;
                  confidence: number;
                  bbox: Box;
                  words: { text: string; confidence: number; bbox: Box }[];
                }[];
              }[];
            }[]
          | null;
      };
    };
    const out: OcrLine[] = [];
    for (const block of data.blocks ?? []) {
      for (const paragraph of block.paragraphs) {
        for (const line of paragraph.lines) {
          out.push({
            text: line.text.trim(),
            confidence: line.confidence,
            bbox: line.bbox,
            words: line.words.map((w) => ({ text: w.text, confidence: w.confidence, bbox: w.bbox })),
          });
        }
      }
    }
    return out.filter((l) => l.text.length > 0);
  }

  /**
   * Words with their boxes, in reading order, from tesseract's TSV output: far cheaper to build
   * and parse than its JSON layout tree.
   */
  async words(image: Buffer, psm: PSM = PSM.SINGLE_BLOCK): Promise<OcrWord[]> {
    if (this.native) return this.native.words(image, Number(psm));
    const scheduler = await this.ready();
    const { data } = (await scheduler.addJob(
      'recognize',
      image,
      { tessedit_pageseg_mode: psm, tessedit_char_whitelist: '' } as never,
      { text: false, tsv: true } as never,
    )) as { data: { tsv: string | null } };
    const out: OcrWord[] = [];
    // level, page, block, paragraph, line, word, left, top, width, height, confidence, text
    for (const row of (data.tsv ?? '').split('\n')) {
      const cols = row.split('\t');
      if (cols[0] !== '5' || cols.length < 12) continue;
      const text = cols.slice(11).join('\t').trim();
      if (!text) continue;
      const [x, y, w, h] = cols.slice(6, 10).map(Number) as [number, number, number, number];
      out.push({ text, confidence: Number(cols[10]), bbox: { x0: x, y0: y, x1: x + w, y1: y + h } });
    }
    return out;
  }

  /**
   * The native engine's requests of the photo being read fail with `reason`, and a helper reading for
   * it is ended and replaced (NativeOcr.abandon). The wasm engine's job runs to its end: its worker
   * cannot be stopped mid-call, and the thread then stops at its next checkpoint.
   */
  abandon(reason: Error): void {
    this.native?.abandon(reason);
  }

  async close(): Promise<void> {
    await this.native?.close();
    await this.scheduler?.terminate();
    this.scheduler = undefined;
    this.starting = undefined;
  }
}
