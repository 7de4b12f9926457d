import { readFile } from 'node:fs/promises';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import type { Box } from '../ocr-types.js';
import { checkpoint } from '../photo-stop.js';
import { ctcGreedy, loadCharacters, withYenSign, type TextReading } from './ctc-decode.js';
import { dbBoxes, type DbOptions, type TextBox } from './db-postprocess.js';
import { simplifyModel } from './model-rewrite.js';
import { paddleModelFiles, type PaddleModelFiles } from './model-files.js';
import { resampleRegion, resizeRgb, rotateLeft, toRgb, type RawImage } from './raw-image.js';

export type { RawImage } from './raw-image.js';
export type { TextBox } from './db-postprocess.js';
export type { TextReading } from './ctc-decode.js';

export type PaddleOcrOptions = Partial<PaddleModelFiles> & {
  /**
   * Threads each model may use for one run. 1 by default: the service runs one recognition per
   * core, and a second thread per run would only make the runs fight for the same cores.
   */
  intraOpNumThreads?: number;
};

export type DetectOptions = Partial<DbOptions> & {
  /** The longest side the detector sees, in pixels (rounded to a multiple of 32). Default 960, PaddleOCR's. */
  maxSide?: number;
  /** Scale smaller images up to maxSide as well (a small crop whose text would be too few pixels tall). */
  upscale?: boolean;
  /**
   * The detector runs on tiles of at most this many pixels a side (overlapping, the probability
   * map stitched before post-processing): its working memory grows with the area it sees at once
   * (a process running it grew to 460 MB at 1920 x 1088 in one piece, 280 MB at 1280 x 736).
   * Default 1280: on the tune photos of scripts/eval/paddle-tags.ts the same tags read right, the
   * peak 130 MB lower, no slower.
   */
  tileSide?: number;
};

export type RecognizeOptions = {
  /** Widest line fed to the recogniser, in pixels at height 48; longer lines are squeezed to it. */
  maxWidth?: number;
  /**
   * Lines are padded to at least this width. PaddleOCR pads every line to 320; the recogniser's
   * time grows with the width (4.5 ms a line at 64 px, 22 ms at 320, one thread), and on the real
   * price tags and the synthetic shelf labels the readings were the same without the padding.
   */
  minWidth?: number;
  /**
   * Lines per run of the recogniser; lines are grouped by width so that little of a batch is padding.
   * Default 1: on one thread a batch saves no time, and its padding (a line up to a quarter narrower
   * than the batch's widest is padded to it) costs more: the detector's lines of 3 second-generator
   * photos cost 18.7 CPU ms a line in batches of 8, 16.5 of 4, 13.9 one at a time.
   */
  batchSize?: number;
  /** Read a crop at least 1.5 times taller than wide as turned text (PaddleOCR's rule), else as it stands. */
  rotateTall?: boolean;
};

export type TextLine = TextReading & { box: Box; score: number };

/** The recogniser's fixed input height. */
const REC_HEIGHT = 48;
// PaddleOCR feeds its detector OpenCV's BGR pixels normalised with ImageNet's mean and std as
// listed for RGB, unswapped, in training and inference alike: fed here the same way.
const DET_MEAN = [0.485, 0.456, 0.406];
const DET_STD = [0.229, 0.224, 0.225];
const DET_SCALE = DET_STD.map((s) => 1 / (255 * s));
const DET_OFFSET = DET_MEAN.map((m, i) => m / DET_STD[i]!);
const DET_DEFAULT_SIDE = 960;
const DET_TILE_SIDE = 1280;
/** Tiles overlap by this many pixels; each owns its half of an overlap, so every pixel it keeps is 48 px or more from its edge. */
const TILE_OVERLAP = 96;

const REC_DEFAULTS: Required<RecognizeOptions> = {
  maxWidth: 960,
  minWidth: 0,
  batchSize: 1,
  rotateTall: true,
};

/**
 * PaddleOCR's PP-OCRv4 text detector and recogniser on CPU through onnxruntime-node, both loaded
 * once per instance (about 15 MB of weights). Methods may be called concurrently; each run uses
 * `intraOpNumThreads` threads. close() releases the native sessions.
 */
export class PaddleOcr {
  private constructor(
    private readonly detector: InferenceSession,
    private readonly recognizer: InferenceSession,
    /** Class index -> character, blank first. */
    readonly characters: string[],
  ) {}

  /** The detector's input buffer between runs (see takeDetectorInput). */
  private detectorInput: Float32Array | undefined;

  /**
   * A buffer of at least `size` floats for a detector run: the last run's when it is large enough and
   * no other run holds it (allocated afresh, 11 MB at 1280 x 736 paid its page faults and zeroing each
   * detection), else a new one.
   */
  private takeDetectorInput(size: number): Float32Array {
    const kept = this.detectorInput;
    if (kept && kept.length >= size) {
      this.detectorInput = undefined;
      return kept;
    }
    return new Float32Array(size);
  }

  /** The buffer back after its run; the larger kept where another run gave one back meanwhile. */
  private giveBackDetectorInput(buffer: Float32Array): void {
    if (!this.detectorInput || this.detectorInput.length < buffer.length) this.detectorInput = buffer;
  }

  static async create(options: PaddleOcrOptions = {}): Promise<PaddleOcr> {
    const files = { ...paddleModelFiles(), ...options };
    const sessionOptions: InferenceSession.SessionOptions = {
      intraOpNumThreads: options.intraOpNumThreads ?? 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      // Every photo and line has its own input shape: a memory pattern is planned (and kept) per shape,
      // which grew the process by 300 MB on a second 1920 px photo and saved no time.
      enableMemPattern: false,
      executionProviders: ['cpu'],
    };
    // Hard-swish in two nodes rather than four, the affine after a convolution folded into it
    // (model-rewrite.ts): a third less CPU a detector run, a sixth less a recogniser run.
    const load = async (path: string) =>
      InferenceSession.create(simplifyModel(await readFile(path)).model, sessionOptions);
    const [detector, recognizer] = await Promise.all([load(files.detectionPath), load(files.recognitionPath)]);
    const characters = loadCharacters(files.dictionaryPath);
    return new PaddleOcr(detector, recognizer, characters);
  }

  async close(): Promise<void> {
    await Promise.all([this.detector.release(), this.recognizer.release()]);
  }

  /** Text lines in an image (encoded, or raw pixels), in its pixels, in reading order. */
  async detect(image: RawImage | Buffer, options: DetectOptions = {}): Promise<TextBox[]> {
    return this.detectRgb(await toRgb(image), options);
  }

  /** The text of each crop (encoded, or raw pixels), one reading per crop, in order. */
  async recognize(crops: (RawImage | Buffer)[], options: RecognizeOptions = {}): Promise<TextReading[]> {
    const images = await Promise.all(crops.map((c) => toRgb(c)));
    return this.recognizeItems(
      images.map((image) => ({ image, box: { x0: 0, y0: 0, x1: image.width, y1: image.height } })),
      options,
    );
  }

  /** The text inside each box of one image, without cutting the crops out first. */
  async recognizeBoxes(image: RawImage | Buffer, boxes: Box[], options: RecognizeOptions = {}): Promise<TextReading[]> {
    const rgb = await toRgb(image);
    return this.recognizeItems(
      boxes.map((box) => ({ image: rgb, box })),
      options,
    );
  }

  /** Detection, then recognition of every line found: the whole of PaddleOCR's pipeline bar the angle classifier. */
  async readLines(image: RawImage | Buffer, options: DetectOptions & RecognizeOptions = {}): Promise<TextLine[]> {
    const rgb = await toRgb(image);
    const boxes = await this.detectRgb(rgb, options);
    const readings = await this.recognizeItems(
      boxes.map((box) => ({ image: rgb, box })),
      options,
    );
    return boxes.map(({ score, ...box }, i) => ({ box, score, ...readings[i]! }));
  }

  /** detect() on pixels already decoded to RGB (toRgb): callers holding a decoded photo skip a decode. */
  async detectRgb(rgb: RawImage, options: DetectOptions = {}): Promise<TextBox[]> {
    const maxSide = options.maxSide ?? DET_DEFAULT_SIDE;
    const longest = Math.max(rgb.width, rgb.height);
    const ratio = longest > maxSide || options.upscale ? maxSide / longest : 1;
    // The network halves the image five times: sides must be multiples of 32.
    const width = Math.max(32, Math.round((rgb.width * ratio) / 32) * 32);
    const height = Math.max(32, Math.round((rgb.height * ratio) / 32) * 32);
    const small = await resizeRgb(rgb, width, height);
    const map = new Float32Array(width * height);
    const tile = Math.max(TILE_OVERLAP * 2 + 32, options.tileSide ?? DET_TILE_SIDE);
    const xs = tiles(width, tile);
    const ys = tiles(height, tile);
    for (const y of ys)
      for (const x of xs) {
        checkpoint();
        await this.detectTile(small, x, y, map);
      }
    checkpoint();
    return dbBoxes(map, width, height, rgb.width / width, rgb.height / height, rgb.width, rgb.height, options);
  }

  /**
   * The detector's probability over one tile of the resized image, written into `map` where the
   * tile owns it (see tiles()). The network's output has its input's size.
   */
  private async detectTile(small: RawImage, x: Span, y: Span, map: Float32Array): Promise<void> {
    const w = x.end - x.start;
    const h = y.end - y.start;
    const plane = w * h;
    const buffer = this.takeDetectorInput(3 * plane);
    const input = buffer.subarray(0, 3 * plane);
    const px = small.data;
    // HWC RGB bytes -> CHW BGR floats, normalised per channel.
    for (let row = 0; row < h; row++) {
      let p = ((y.start + row) * small.width + x.start) * 3;
      for (let i = row * w, end = i + w; i < end; i++, p += 3) {
        input[i] = px[p + 2]! * DET_SCALE[0]! - DET_OFFSET[0]!;
        input[plane + i] = px[p + 1]! * DET_SCALE[1]! - DET_OFFSET[1]!;
        input[2 * plane + i] = px[p]! * DET_SCALE[2]! - DET_OFFSET[2]!;
      }
    }
    const feeds = { [this.detector.inputNames[0]!]: new Tensor('float32', input, [1, 3, h, w]) };
    let result: InferenceSession.OnnxValueMapType;
    try {
      result = await this.detector.run(feeds);
    } finally {
      this.giveBackDetectorInput(buffer);
    }
    const output = result[this.detector.outputNames[0]!]!;
    const probs = output.data as Float32Array;
    for (let row = y.ownStart; row < y.ownEnd; row++) {
      const from = (row - y.start) * w + (x.ownStart - x.start);
      map.set(probs.subarray(from, from + (x.ownEnd - x.ownStart)), row * small.width + x.ownStart);
    }
    output.dispose();
  }

  private async recognizeItems(
    items: { image: RawImage; box: Box }[],
    options: RecognizeOptions,
  ): Promise<TextReading[]> {
    const o = { ...REC_DEFAULTS, ...options };
    // Each line at height 48, width in proportion (capped), turned first when it stands upright.
    const lines = items.map(({ image, box }, index) => {
      const w = Math.max(1, box.x1 - box.x0);
      const h = Math.max(1, box.y1 - box.y0);
      const turned = o.rotateTall && h >= 1.5 * w;
      const aspect = turned ? h / w : w / h;
      const width = Math.max(1, Math.min(o.maxWidth, Math.ceil(REC_HEIGHT * aspect)));
      return { index, image, box, turned, width };
    });
    // Similar widths together: a batch ends at batchSize lines or where a line is a quarter wider
    // than the batch's first, so that little of any batch is padding (the recogniser's time is in
    // proportion to the padded width; batching itself saves nothing on one thread).
    const order = [...lines].sort((a, b) => a.width - b.width);
    const batches: (typeof lines)[] = [];
    for (const line of order) {
      const last = batches.at(-1);
      if (last && last.length < o.batchSize && line.width <= last[0]!.width * 1.25) last.push(line);
      else batches.push([line]);
    }
    const out: TextReading[] = new Array(items.length);
    for (const batch of batches) {
      checkpoint();
      // The recogniser downsamples width by 8: a multiple of 8 wastes no step.
      const width = Math.ceil(Math.max(o.minWidth, ...batch.map((l) => l.width)) / 8) * 8;
      const plane = REC_HEIGHT * width;
      // Zero after normalisation is mid grey: PaddleOCR's padding.
      const input = new Float32Array(batch.length * 3 * plane);
      batch.forEach((line, b) => {
        const rgb = line.turned
          ? rotateLeft(resampleRegion(line.image, line.box, REC_HEIGHT, line.width), REC_HEIGHT, line.width)
          : resampleRegion(line.image, line.box, line.width, REC_HEIGHT);
        const base = b * 3 * plane;
        for (let y = 0; y < REC_HEIGHT; y++) {
          for (let x = 0; x < line.width; x++) {
            const p = (y * line.width + x) * 3;
            const i = base + y * width + x;
            // BGR, (v / 255 - 0.5) / 0.5.
            input[i] = rgb[p + 2]! / 127.5 - 1;
            input[plane + i] = rgb[p + 1]! / 127.5 - 1;
            input[2 * plane + i] = rgb[p]! / 127.5 - 1;
          }
        }
      });
      const feeds = {
        [this.recognizer.inputNames[0]!]: new Tensor('float32', input, [batch.length, 3, REC_HEIGHT, width]),
      };
      const result = await this.recognizer.run(feeds);
      const output = result[this.recognizer.outputNames[0]!]!;
      const [n, steps, classes] = output.dims as number[];
      if (classes !== this.characters.length) {
        throw new Error(`paddle-ocr: the recogniser has ${classes} classes, the dictionary ${this.characters.length}`);
      }
      const readings = ctcGreedy(output.data as Float32Array, n!, steps!, classes, this.characters);
      output.dispose();
      // The decoder gives the dictionary's glyphs; this dictionary has no 円 (withYenSign).
      batch.forEach((line, b) => (out[line.index] = { ...readings[b]!, text: withYenSign(readings[b]!.text) }));
    }
    return out;
  }
}

/** One tile's extent along an axis, and the part of it whose output is kept. */
type Span = { start: number; end: number; ownStart: number; ownEnd: number };

/**
 * Overlapping tiles covering [0, size), as few as fit in `tile` pixels each, of one size (a
 * multiple of 32), each keeping the output up to the middle of its overlaps with its neighbours.
 */
function tiles(size: number, tile: number): Span[] {
  if (size <= tile) return [{ start: 0, end: size, ownStart: 0, ownEnd: size }];
  const count = Math.ceil((size - TILE_OVERLAP) / (tile - TILE_OVERLAP));
  const length = Math.min(size, Math.ceil((size + (count - 1) * TILE_OVERLAP) / count / 32) * 32);
  const spans: Span[] = [];
  for (let i = 0; i < count; i++) {
    const start = Math.round((i * (size - length)) / (count - 1));
    spans.push({ start, end: start + length, ownStart: 0, ownEnd: size });
  }
  for (let i = 1; i < count; i++) {
    const middle = Math.round((spans[i]!.start + spans[i - 1]!.end) / 2);
    spans[i - 1]!.ownEnd = middle;
    spans[i]!.ownStart = middle;
  }
  return spans;
}
