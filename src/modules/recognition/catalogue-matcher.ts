import type { MATCH_STATUSES } from '../products/product.entity.js';
import type { CatalogueEntry, RecognizedProduct } from './recognizer.js';

export type MatchStatus = (typeof MATCH_STATUSES)[number];
export type Match = { status: MatchStatus; entry: CatalogueEntry | null; score: number };

/** UPC-A, UPC-E-expanded, EAN-8/13 and GTIN-14 compare equal once left-padded to 14 digits. */
export function normalizeGtin(code: string | null | undefined): string | null {
  if (!code) return null;
  const digits = code.replace(/\D/g, '');
  if (digits.length < 8 || digits.length > 14) return null;
  return digits.padStart(14, '0');
}

const STOP: ReadonlySet<string> = new Set(['the', 'and', 'of', 'a', 'with', 'pack', 'x']);
export function tokens(text: string | null | undefined): Set<string> {
  return new Set(
    (text ?? '')
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      // "330ml" and "330 ml" are the same size
      .replace(/(\d)([a-z])/g, '$1 $2')
      .replace(/([a-z])(\d)/g, '$1 $2')
      .split(/[^a-z0-9]+/)
      .filter((t) => t.length > 1 && !STOP.has(t)),
  );
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const t of a) if (b.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Brand + name similarity needed for a `probable` match. */
export const PROBABLE_THRESHOLD = 0.5;

/** A catalogue entry with what every matcher compares: its GTIN, its brand's tokens, its brand and name tokens. */
export type IndexedEntry = { entry: CatalogueEntry; gtin: string | null; brand: Set<string>; tokens: Set<string> };

/** The one way the catalogue is indexed, for this matcher and the local engine's label reader. */
export function indexCatalogue(catalogue: CatalogueEntry[]): IndexedEntry[] {
  return catalogue.map((entry) => ({
    entry,
    gtin: normalizeGtin(entry.upc),
    brand: tokens(entry.brand),
    tokens: tokens(`${entry.brand} ${entry.name}`),
  }));
}

/**
 * Matches one recognized product to the catalogue: GTIN exact, then SKU exact (`matched`), then
 * brand and name similarity (`probable`), else `unmatched`.
 */
export class CatalogueMatcher {
  private readonly byGtin = new Map<string, CatalogueEntry>();
  private readonly bySku = new Map<string, CatalogueEntry>();
  private readonly indexed: IndexedEntry[];

  constructor(catalogue: CatalogueEntry[]) {
    this.indexed = indexCatalogue(catalogue);
    for (const { entry, gtin } of this.indexed) {
      if (gtin) this.byGtin.set(gtin, entry);
      this.bySku.set(entry.sku.toLowerCase(), entry);
    }
  }

  match(product: Pick<RecognizedProduct, 'upc' | 'sku' | 'brand' | 'description'>): Match {
    const gtin = normalizeGtin(product.upc);
    const byCode =
      (gtin && this.byGtin.get(gtin)) || (product.sku ? this.bySku.get(product.sku.toLowerCase()) : undefined);
    if (byCode) return { status: 'matched', entry: byCode, score: 1 };

    const brand = tokens(product.brand);
    const all = tokens(`${product.brand ?? ''} ${product.description ?? ''}`);
    let best: Match = { status: 'unmatched', entry: null, score: 0 };
    for (const candidate of this.indexed) {
      const brandAgrees = brand.size === 0 || [...brand].some((t) => candidate.brand.has(t));
      if (!brandAgrees) continue;
      const score = jaccard(all, candidate.tokens);
      if (score > best.score)
        best = { status: score >= PROBABLE_THRESHOLD ? 'probable' : 'unmatched', entry: candidate.entry, score };
    }
    return best.status === 'probable' ? best : { status: 'unmatched', entry: null, score: best.score };
  }
}
