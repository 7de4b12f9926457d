import type { CatalogueEntry } from '../../src/modules/recognition/recognizer.js';

/** A catalogue entry as an organisation's inventory gives the recognizer, with only what a test sets. */
export const catalogueEntry = (
  sku: string,
  brand: string,
  name: string,
  expectedPrice: number | null = null,
  currency: string | null = null,
): CatalogueEntry => ({
  sku,
  upc: null,
  brand,
  name,
  category: null,
  subcategory: null,
  sizeValue: null,
  sizeUnit: null,
  expectedPrice,
  currency,
});
