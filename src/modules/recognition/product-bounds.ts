import { fitText, storableText, unstorable } from '../../lib/text.js';
import type { ProductBox, RecognizedProduct } from './recognizer.js';

/**
 * What a recognized product may hold, from the products table (migrations/): free text and
 * identifiers are varchar(255), currency varchar(3), prices numeric(12,2), units an integer.
 * Whatever a recognizer reports is brought within these before it is written, so a model's
 * answer can never make the insert fail (and an analysis retry it without end).
 */
export const PRODUCT_LIMITS = {
  text: 255,
  maxPrice: 9_999_999_999.99,
  /**
   * Facings of one product in one photo. No shelf photo shows more than a few hundred; a larger
   * count is a misreading, kept as "many" rather than dropped (the product is still there). With
   * it, totalUnits (an integer) cannot overflow for any answer a model can give.
   */
  maxUnits: 1000,
} as const;

/** Free text (brand, category, size unit): cut to the column with an ellipsis; the rest is still useful. */
export const boundText = (v: string | null): string | null =>
  v == null ? null : fitText(storableText(v), PRODUCT_LIMITS.text);

/** Text without a length limit (the description, a text column): only made storable. */
export const boundLongText = (v: string | null): string | null => (v == null ? null : storableText(v));

/** Identifiers (SKU, UPC): a cut identifier identifies nothing (or the wrong thing), so it is dropped. */
export const boundIdentifier = (v: string | null): string | null =>
  v == null || [...v].length > PRODUCT_LIMITS.text || unstorable(v) ? null : v;

/** ISO 4217 or nothing: "US dollars" is not a code, and a guess at one would be invented. */
export const boundCurrency = (v: string | null): string | null => {
  const code = v?.trim().toUpperCase();
  return code && /^[A-Z]{3}$/.test(code) ? code : null;
};

/** A price the column cannot hold is not a price read off a shelf label: unknown. */
export const boundPrice = (v: number | null): number | null =>
  v == null || !Number.isFinite(v) || v < 0 || v > PRODUCT_LIMITS.maxPrice ? null : v;

/** A whole number of facings, at least 1, at most PRODUCT_LIMITS.maxUnits. */
export const boundUnits = (v: number): number =>
  Number.isNaN(v) ? 1 : Math.min(PRODUCT_LIMITS.maxUnits, Math.max(1, Math.round(v)));

export const boundScore = (v: number): number => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);

/** A pack size is a non-negative finite number (double precision holds any such); anything else is unknown. */
export const boundSize = (v: number | null): number | null => (v == null || !Number.isFinite(v) || v < 0 ? null : v);

/** A box within the photo (fractions from 0 to 1, not empty), or none: a box off the photo shows nothing true. */
export const boundBox = (b: ProductBox | null | undefined): ProductBox | null => {
  if (!b || ![b.x, b.y, b.width, b.height].every(Number.isFinite)) return null;
  // The part of the box on the photo: its corners clamped to [0, 1].
  const clamp = (v: number) => Math.min(1, Math.max(0, v));
  const [x0, x1, y0, y1] = [clamp(b.x), clamp(b.x + b.width), clamp(b.y), clamp(b.y + b.height)];
  if (x1 - x0 <= 0 || y1 - y0 <= 0) return null;
  const r = (v: number) => Math.round(v * 10_000) / 10_000;
  return { x: r(x0), y: r(y0), width: r(x1 - x0), height: r(y1 - y0) };
};

/** Every field of a product within its column (any engine: the openai one already answers bounded). */
export function boundProduct(p: RecognizedProduct): RecognizedProduct {
  return {
    ...p,
    brand: boundText(p.brand),
    description: boundLongText(p.description),
    units: boundUnits(p.units),
    upc: boundIdentifier(p.upc),
    sku: boundIdentifier(p.sku),
    category: boundText(p.category),
    subcategory: boundText(p.subcategory),
    price: boundPrice(p.price),
    discountedPrice: boundPrice(p.discountedPrice),
    currency: boundCurrency(p.currency),
    confidenceScore: boundScore(p.confidenceScore),
    sizeValue: boundSize(p.sizeValue),
    sizeUnit: boundText(p.sizeUnit),
    // An engine that does not locate products leaves the field out; it stays out.
    ...(p.box === undefined ? {} : { box: boundBox(p.box) }),
  };
}
