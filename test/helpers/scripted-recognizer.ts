import type { RecognizedProduct, RecognizeInput, Recognizer } from '../../src/modules/recognition/recognizer.js';

export function product(fields: Partial<RecognizedProduct>): RecognizedProduct {
  return {
    brand: null,
    description: null,
    units: 1,
    upc: null,
    sku: null,
    category: null,
    subcategory: null,
    price: null,
    discountedPrice: null,
    currency: null,
    onSale: false,
    confidenceScore: 0.9,
    shelfPosition: null,
    shelfSection: null,
    fixtureType: null,
    sizeValue: null,
    sizeUnit: null,
    ...fields,
  };
}

/**
 * A recognizer whose answers the test scripts (the vision engine is outside what these tests
 * measure). It sees the real image bytes the workflow stored, and counts its calls.
 */
export class ScriptedRecognizer implements Recognizer {
  readonly name = 'scripted';
  calls = 0;
  constructor(private readonly script: (input: RecognizeInput) => RecognizedProduct[] | Promise<RecognizedProduct[]>) {}
  async recognize(input: RecognizeInput): Promise<RecognizedProduct[]> {
    this.calls++;
    return this.script(input);
  }
}
