// The invented catalogue: brands, products, their barcodes and shelf prices. Its brands and names are
// deliberately unlike the first generator's, and each currency has its own items, because a photo is
// one store in one country (a photo only shows items of one currency).
import { type Rng } from './random.js';

export type Currency = 'GBP' | 'EUR' | 'USD' | 'JPY';

/** How a pack is drawn; `peg` kinds hang on hooks, the rest stand on shelves. */
export type PackKind = 'box' | 'can' | 'bottle' | 'jar' | 'carton' | 'tub' | 'bag' | 'pouch' | 'blister';

export type CatalogueEntry = {
  sku: string;
  upc: string;
  brand: string;
  name: string;
  category: string;
  subcategory: string | null;
  sizeValue: number;
  sizeUnit: string;
  expectedPrice: number;
  currency: Currency;
};

/** A catalogue entry with the drawing hints the photos need (not written to catalogue.json). */
export type Product = CatalogueEntry & {
  kind: PackKind;
  /** The name without its size, printed big on the pack. */
  shortName: string;
  colours: { body: string; band: string; text: string; accent: string };
};

type Template = {
  shortName: string;
  sizeValue: number;
  sizeUnit: string;
  category: string;
  subcategory: string | null;
  kind: PackKind;
  /** A typical UK shelf price in pounds; other currencies scale from it. */
  gbp: number;
};

const t = (
  shortName: string,
  sizeValue: number,
  sizeUnit: string,
  category: string,
  subcategory: string | null,
  kind: PackKind,
  gbp: number,
): Template => ({ shortName, sizeValue, sizeUnit, category, subcategory, kind, gbp });

const TEMPLATES: Template[] = [
  t('Minestrone Soup', 400, 'g', 'Canned Food', 'Soup', 'can', 1.1),
  t('Chicken Noodle Soup', 400, 'g', 'Canned Food', 'Soup', 'can', 1.2),
  t('Chopped Tomatoes', 400, 'g', 'Canned Food', 'Vegetables', 'can', 0.65),
  t('Chickpeas', 400, 'g', 'Canned Food', 'Pulses', 'can', 0.75),
  t('Sweetcorn', 326, 'g', 'Canned Food', 'Vegetables', 'can', 0.9),
  t('Tuna Chunks', 145, 'g', 'Canned Food', 'Fish', 'can', 1.45),
  t('Penne Pasta', 500, 'g', 'Pasta & Rice', 'Pasta', 'bag', 1.0),
  t('Spaghetti', 500, 'g', 'Pasta & Rice', 'Pasta', 'box', 1.15),
  t('Basmati Rice', 1, 'kg', 'Pasta & Rice', 'Rice', 'bag', 2.6),
  t('Egg Noodles', 250, 'g', 'Pasta & Rice', null, 'box', 1.3),
  t('Pesto Genovese', 190, 'g', 'Sauces', 'Pasta Sauce', 'jar', 2.2),
  t('Tomato Ketchup', 460, 'g', 'Sauces', 'Condiments', 'bottle', 1.9),
  t('Mayonnaise', 400, 'ml', 'Sauces', 'Condiments', 'jar', 2.1),
  t('Soy Sauce', 150, 'ml', 'Sauces', 'World Foods', 'bottle', 1.6),
  t('Korma Curry Paste', 200, 'g', 'Sauces', 'World Foods', 'jar', 1.85),
  t('Clear Honey', 340, 'g', 'Spreads', null, 'jar', 2.75),
  t('Hazelnut Spread', 400, 'g', 'Spreads', null, 'jar', 2.9),
  t('Granola Crunch', 500, 'g', 'Breakfast', 'Cereal', 'box', 3.2),
  t('Bran Flakes', 500, 'g', 'Breakfast', 'Cereal', 'box', 1.9),
  t('Porridge Oats', 1, 'kg', 'Breakfast', 'Hot Cereal', 'box', 1.65),
  t('Fruit Muesli', 750, 'g', 'Breakfast', 'Cereal', 'box', 2.8),
  t('Sea Salt Crisps', 150, 'g', 'Snacks', 'Crisps', 'bag', 1.5),
  t('Paprika Crisps', 150, 'g', 'Snacks', 'Crisps', 'bag', 1.5),
  t('Tortilla Chips', 200, 'g', 'Snacks', 'Crisps', 'bag', 1.35),
  t('Digestive Biscuits', 400, 'g', 'Snacks', 'Biscuits', 'box', 1.1),
  t('Oat Cookies', 300, 'g', 'Snacks', 'Biscuits', 'box', 1.75),
  t('Rice Crackers', 100, 'g', 'Snacks', null, 'box', 1.25),
  t('Salted Peanuts', 200, 'g', 'Snacks', 'Nuts', 'pouch', 1.4),
  t('Dried Apricots', 250, 'g', 'Snacks', 'Dried Fruit', 'pouch', 2.3),
  t('Gummy Bears', 180, 'g', 'Confectionery', 'Sweets', 'pouch', 1.2),
  t('Mint Humbugs', 150, 'g', 'Confectionery', 'Sweets', 'pouch', 1.0),
  t('Cloudy Lemonade', 2, 'L', 'Drinks', 'Soft Drinks', 'bottle', 1.55),
  t('Ginger Beer', 330, 'ml', 'Drinks', 'Soft Drinks', 'can', 0.85),
  t('Mango Juice', 1, 'L', 'Drinks', 'Juice', 'carton', 2.1),
  t('Still Water', 1.5, 'L', 'Drinks', 'Water', 'bottle', 0.7),
  t('Peach Iced Tea', 500, 'ml', 'Drinks', 'Soft Drinks', 'bottle', 1.3),
  t('Oat Drink', 1, 'L', 'Drinks', 'Plant Milk', 'carton', 1.8),
  t('Instant Coffee', 200, 'g', 'Hot Drinks', 'Coffee', 'jar', 4.5),
  t('Earl Grey Tea', 80, 'bags', 'Hot Drinks', 'Tea', 'box', 2.4),
  t('Chamomile Tea', 20, 'bags', 'Hot Drinks', 'Tea', 'box', 1.6),
  t('Hot Chocolate', 300, 'g', 'Hot Drinks', null, 'tub', 2.5),
  t('Natural Yogurt', 500, 'g', 'Dairy', 'Yogurt', 'tub', 1.1),
  t('Washing-Up Liquid', 500, 'ml', 'Household', 'Cleaning', 'bottle', 1.25),
  t('Laundry Gel', 1, 'L', 'Household', 'Laundry', 'bottle', 4.0),
  t('Scouring Sponges', 4, 'pack', 'Household', 'Cleaning', 'blister', 1.0),
  t('AA Batteries', 4, 'pack', 'Household', 'Electrical', 'blister', 3.5),
  t('Cable Ties', 50, 'pack', 'Household', null, 'blister', 2.0),
  t('Herbal Shampoo', 400, 'ml', 'Personal Care', 'Hair', 'bottle', 2.8),
  t('Mint Toothpaste', 75, 'ml', 'Personal Care', 'Oral Care', 'box', 1.5),
  t('Hair Clips', 12, 'pack', 'Personal Care', 'Accessories', 'blister', 1.8),
];

// Invented brands; checked against the first generator's list so no name is shared.
const BRANDS = [
  'Kestrel Farm',
  'Marlow & Finch',
  'Copperleaf',
  'Tidewater',
  'Hollybrook',
  'Bramblewood',
  'Northgate',
  'Saffron Lane',
  'Pinecrest',
  'Moorland',
  'Little Otter',
  'Verdant',
  'Ironbridge',
  'Amberfield',
  'Wrenfield',
  'Quayside',
  'Orchard Row',
  'Stonebay',
];

const CATEGORY_CODES: Record<string, string> = {
  'Canned Food': 'CAN',
  'Pasta & Rice': 'PAR',
  Sauces: 'SAU',
  Spreads: 'SPR',
  Breakfast: 'BRK',
  Snacks: 'SNK',
  Confectionery: 'CNF',
  Drinks: 'DRK',
  'Hot Drinks': 'HOT',
  Dairy: 'DRY',
  Household: 'HHD',
  'Personal Care': 'PCR',
};

/** How many items each currency gets: a GBP photo can hold up to 20 distinct products. */
const PER_CURRENCY: [Currency, number][] = [
  ['GBP', 20],
  ['EUR', 14],
  ['USD', 12],
  ['JPY', 12],
];

export function formatSize(value: number, unit: string): string {
  // "400g", "1.5L", "80 bags", "4 pack": metric units stick to the number, words take a space.
  return /^(g|kg|ml|L)$/.test(unit) ? `${value}${unit}` : `${value} ${unit}`;
}

/** GS1 check digit for an EAN-13 / UPC-A body (12 / 11 digits). */
export function gtinCheckDigit(body: string): number {
  let sum = 0;
  // Weights 3,1,3,... from the rightmost body digit.
  for (let i = 0; i < body.length; i++) {
    const digit = Number(body[body.length - 1 - i]);
    sum += digit * (i % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10;
}

function makeGtin(currency: Currency, rng: Rng): string {
  const digits = (n: number) => Array.from({ length: n }, () => rng.int(0, 9)).join('');
  let body: string;
  if (currency === 'USD') {
    // UPC-A: number system 0, 7 or 8 (regular items), 11 body digits.
    body = rng.pick(['0', '0', '7', '8']) + digits(10);
  } else {
    const prefix =
      currency === 'GBP'
        ? '50'
        : currency === 'JPY'
          ? rng.pick(['45', '49'])
          : rng.pick(['40', '42', '30', '80', '84', '87', '54']);
    body = prefix + digits(10);
  }
  return body + gtinCheckDigit(body);
}

/** Rounds a price to the endings shops use in that currency (.99, .49, ¥198...). */
export function shelfRound(value: number, currency: Currency, rng: Rng): number {
  if (currency === 'JPY') {
    // Yen prices end in 8 (98, 148, 398) or sometimes a round hundred.
    const tens = Math.max(6, Math.round(value / 10));
    return rng.chance(0.85) ? tens * 10 - 2 : Math.max(100, Math.round(value / 100) * 100);
  }
  const endings: Record<Exclude<Currency, 'JPY'>, number[]> = {
    GBP: [0.0, 0.25, 0.49, 0.5, 0.65, 0.75, 0.85, 0.99, 0.29, 0.19],
    EUR: [0.29, 0.49, 0.79, 0.95, 0.99, 0.19, 0.59],
    USD: [0.29, 0.49, 0.79, 0.99, 0.99, 0.69],
  };
  const whole = Math.floor(value);
  const candidates: number[] = [];
  for (const w of [whole - 1, whole, whole + 1]) {
    for (const e of endings[currency]) if (w + e >= 0.39) candidates.push(w + e);
  }
  candidates.sort((a, b) => Math.abs(a - value) - Math.abs(b - value));
  // Not always the nearest: shops round up and down.
  return Math.round(candidates[rng.int(0, Math.min(2, candidates.length - 1))] * 100) / 100;
}

const RATE: Record<Currency, number> = { GBP: 1, EUR: 1.16, USD: 1.3, JPY: 185 };

// Pack colour schemes: a body colour, a band, the text colour that reads on the body, an accent.
const PALETTES: Product['colours'][] = [
  { body: '#c8102e', band: '#ffffff', text: '#ffffff', accent: '#ffd100' },
  { body: '#1d4f91', band: '#f2f2f2', text: '#ffffff', accent: '#ef8200' },
  { body: '#2e7d32', band: '#f6e7b4', text: '#ffffff', accent: '#8b4513' },
  { body: '#f6c700', band: '#c8102e', text: '#1a1a1a', accent: '#1d4f91' },
  { body: '#fafafa', band: '#00857c', text: '#1a1a1a', accent: '#e4002b' },
  { body: '#5b2c6f', band: '#f4d03f', text: '#ffffff', accent: '#f4d03f' },
  { body: '#ff7f32', band: '#3d2b1f', text: '#1a1a1a', accent: '#ffffff' },
  { body: '#0f172a', band: '#d4af37', text: '#f5f5f5', accent: '#d4af37' },
  { body: '#9bd3ae', band: '#14532d', text: '#14532d', accent: '#fde047' },
  { body: '#f3e5ab', band: '#7b3f00', text: '#3b1f0b', accent: '#b22222' },
  { body: '#00a3e0', band: '#ffffff', text: '#ffffff', accent: '#003b5c' },
  { body: '#8d1b3d', band: '#e8d5b7', text: '#ffffff', accent: '#e8d5b7' },
  { body: '#e0e0e0', band: '#333333', text: '#222222', accent: '#0077c8' },
  { body: '#6b8e23', band: '#fffbe6', text: '#ffffff', accent: '#ffcc00' },
];

export function buildCatalogue(rng: Rng): Product[] {
  const products: Product[] = [];
  const usedGtins = new Set<string>();
  const usedPairs = new Set<string>();
  let serial = 1;
  for (const [currency, count] of PER_CURRENCY) {
    // Every currency gets some hanging (peg) items so that a photo may have a peg-hook row.
    const peg = rng.shuffle(TEMPLATES.filter((x) => x.kind === 'pouch' || x.kind === 'blister')).slice(0, 5);
    const shelf = rng.shuffle(TEMPLATES.filter((x) => !peg.includes(x)));
    const chosen = [...peg, ...shelf.slice(0, count - peg.length)];
    // Two brands of the same product in a store (and so on a shelf) is common; make a few.
    for (let i = 0; i < 2; i++) chosen[chosen.length - 1 - i] = rng.pick(chosen.slice(0, chosen.length - 2));
    for (const template of chosen) {
      let brand = rng.pick(BRANDS);
      while (usedPairs.has(`${currency}|${brand}|${template.shortName}`)) brand = rng.pick(BRANDS);
      usedPairs.add(`${currency}|${brand}|${template.shortName}`);
      let upc = makeGtin(currency, rng);
      while (usedGtins.has(upc)) upc = makeGtin(currency, rng);
      usedGtins.add(upc);
      const price = shelfRound(template.gbp * RATE[currency] * rng.float(0.8, 1.35), currency, rng);
      products.push({
        sku: `S2-${currency}-${CATEGORY_CODES[template.category]}-${String(serial++).padStart(3, '0')}`,
        upc,
        brand,
        name: `${template.shortName} ${formatSize(template.sizeValue, template.sizeUnit)}`,
        category: template.category,
        subcategory: template.subcategory,
        sizeValue: template.sizeValue,
        sizeUnit: template.sizeUnit,
        expectedPrice: price,
        currency,
        kind: template.kind,
        shortName: template.shortName,
        colours: rng.pick(PALETTES),
      });
    }
  }
  return products;
}

/** The catalogue.json shape: the evaluator's fields only. */
export function catalogueJson(products: Product[]): CatalogueEntry[] {
  return products.map((p) => ({
    sku: p.sku,
    upc: p.upc,
    brand: p.brand,
    name: p.name,
    category: p.category,
    subcategory: p.subcategory,
    sizeValue: p.sizeValue,
    sizeUnit: p.sizeUnit,
    expectedPrice: p.expectedPrice,
    currency: p.currency,
  }));
}
