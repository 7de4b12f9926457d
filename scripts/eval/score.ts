import { normalizeGtin } from '../../src/modules/recognition/catalogue-matcher.js';
import type { RecognizedProduct } from '../../src/modules/recognition/recognizer.js';

/** One photo's ground truth, as both shelf generators write it beside the photo. */
export type ShelfTruth = {
  image: string;
  products: {
    sku: string;
    upc: string;
    units: number;
    price: number;
    discountedPrice: number | null;
    onSale: boolean;
    shelfPosition: string;
    shelfSection: string;
  }[];
};

export type ShelfScore = {
  truth: number;
  found: number;
  falsePositives: number;
  pricesRight: number;
  positionsRight: number;
  unitsRight: number;
};

/**
 * What a recognizer got right on one photo: a product counts once per SKU (named by the catalogue,
 * or by its decoded barcode), found when the SKU is on the shelf, a false positive when it is not.
 */
export function scoreShelf(
  products: Pick<
    RecognizedProduct,
    'sku' | 'upc' | 'price' | 'discountedPrice' | 'shelfPosition' | 'shelfSection' | 'units'
  >[],
  truth: ShelfTruth,
  catalogue: { sku: string; upc: string | null }[],
): ShelfScore {
  const skuOf = (p: { sku: string | null; upc: string | null }) =>
    p.sku ?? catalogue.find((c) => c.upc && normalizeGtin(c.upc) === normalizeGtin(p.upc))?.sku ?? null;
  const predicted = new Map<string, (typeof products)[number]>();
  for (const p of products) {
    const sku = skuOf(p);
    if (sku && !predicted.has(sku)) predicted.set(sku, p);
  }
  const truthBySku = new Map(truth.products.map((p) => [p.sku, p]));
  const score: ShelfScore = {
    truth: truth.products.length,
    found: 0,
    falsePositives: 0,
    pricesRight: 0,
    positionsRight: 0,
    unitsRight: 0,
  };
  for (const [sku, p] of predicted) {
    const t = truthBySku.get(sku);
    if (!t) {
      score.falsePositives++;
      continue;
    }
    score.found++;
    if (p.price === t.price && (p.discountedPrice ?? null) === (t.discountedPrice ?? null)) score.pricesRight++;
    if (p.shelfPosition === t.shelfPosition && p.shelfSection === t.shelfSection) score.positionsRight++;
    if (p.units === t.units) score.unitsRight++;
  }
  return score;
}
