import type { CONFIDENCE_LEVELS, FIXTURE_TYPES, SHELF_POSITIONS, SHELF_SECTIONS } from '../products/product.entity.js';
import type { ImageErrorCode } from '../../temporal/contracts/image-errors.js';

/** What the recognizer may use to name what it sees: the organisation's catalogue. */
export type CatalogueEntry = {
  sku: string;
  upc: string | null;
  brand: string;
  name: string;
  category: string | null;
  subcategory: string | null;
  sizeValue: number | null;
  sizeUnit: string | null;
  expectedPrice: number | null;
  currency: string | null;
};

/**
 * One product as a recognizer reports it. Unknown values are null, never invented; catalogue
 * matching (matchStatus, matchedInventorySku) happens after the passes are merged.
 */
export type RecognizedProduct = {
  brand: string | null;
  description: string | null;
  units: number;
  upc: string | null;
  sku: string | null;
  category: string | null;
  subcategory: string | null;
  price: number | null;
  discountedPrice: number | null;
  currency: string | null;
  onSale: boolean;
  confidenceScore: number;
  shelfPosition: (typeof SHELF_POSITIONS)[number] | null;
  shelfSection: (typeof SHELF_SECTIONS)[number] | null;
  fixtureType: (typeof FIXTURE_TYPES)[number] | null;
  sizeValue: number | null;
  sizeUnit: string | null;
  /**
   * Where the product is on the photo (upright, as EXIF orientation turns it), as fractions of its
   * width and height, for drawing it on the photo. Left out (or null) by engines that do not locate
   * products: the openai engine's models place boxes too unreliably to draw.
   */
  box?: ProductBox | null;
};

/** A rectangle on the photo: its top-left corner, width and height, each a fraction (0 to 1) of the photo's. */
export type ProductBox = { x: number; y: number; width: number; height: number };

export type Confidence = (typeof CONFIDENCE_LEVELS)[number];

export type RecognizeInput = {
  image: Buffer;
  contentType: string;
  width: number;
  height: number;
  catalogue: CatalogueEntry[];
  /** Which pass this is (0-based), for recognizers that vary their approach per pass. */
  runIndex: number;
  signal?: AbortSignal;
};

/** The port every recognition engine implements. */
export interface Recognizer {
  readonly name: string;
  /**
   * True: every photo is decoded in full before anything is read of it, and one that does not decode
   * (a truncated file behind a valid header) is refused with RecognitionRejectedError's
   * IMAGE_NOT_AN_IMAGE and the fetch's own message. The fetch then leaves that decode to it instead of
   * decoding the photo a second time (decisions.md D282). Absent: the fetch decodes every photo itself.
   */
  readonly decodesEveryPhoto?: boolean;
  recognize(input: RecognizeInput): Promise<RecognizedProduct[]>;
}

/** A failure that retrying cannot fix (the engine refused the image, or answered nonsense). */
export class RecognitionRejectedError extends Error {
  /**
   * `code`: the analysis' error code when the image itself is the reason (IMAGE_TOO_COMPLEX, or
   * IMAGE_NOT_AN_IMAGE from a recognizer that `decodesEveryPhoto`).
   */
  constructor(
    message: string,
    readonly code?: Extract<ImageErrorCode, 'IMAGE_TOO_COMPLEX' | 'IMAGE_NOT_AN_IMAGE'>,
  ) {
    super(message);
    this.name = 'RecognitionRejectedError';
  }
}

/** Makes an engine's recognizer; the engines RECOGNIZER selects from are engines/index.ts's. */
export type RecognizerFactory = () => Recognizer | Promise<Recognizer>;

export function confidenceLevel(score: number): Confidence {
  if (score >= 0.8) return 'high';
  if (score >= 0.5) return 'medium';
  return 'low';
}
