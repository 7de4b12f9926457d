// The invented catalogue: brands, product names, sizes, prices and barcodes, and how each pack looks.
// Every word list here is this generator's own.
import { withCheckDigit } from './barcode.js';
import { hsl, ink, shade } from './colour.js';
import { charm, type Currency, roundMoney } from './money.js';
import type { Rng } from './random.js';
import type { CatalogueEntry as ServiceCatalogueEntry } from '../../../src/modules/recognition/recognizer.js';
import { ALL_FONTS, type FontKey } from './text.js';

/** An entry as the service's catalogue holds it (the format the evaluator reads), with its GTIN and currency always set. */
export interface CatalogueEntry extends Omit<ServiceCatalogueEntry, 'upc' | 'currency'> {
  upc: string;
  currency: Currency;
}

export type PackShape =
  | 'box'
  | 'tall-box'
  | 'long-box'
  | 'carton'
  | 'bottle'
  | 'jug'
  | 'pump'
  | 'trigger'
  | 'can'
  | 'spray'
  | 'jar'
  | 'tub'
  | 'bag'
  | 'card';

export interface BrandLook {
  font: FontKey;
  bold: boolean;
  italic: boolean;
  upper: boolean;
  spacing: number;
  colour: string;
  badge: 'none' | 'ellipse' | 'ribbon' | 'box' | 'underline';
  badgeColour: string;
  hue: number;
}

export interface PackLook {
  shape: PackShape;
  widthCm: number;
  heightCm: number;
  body: string;
  accent: string;
  ink: string;
  motif: 'band' | 'stripe' | 'circle' | 'wave' | 'dots' | 'split' | 'plain';
  /** Colour seen through a clear bottle or jar, or null for an opaque one. */
  liquid: string | null;
  cap: string;
  nameFont: FontKey;
  nameUpper: boolean;
}

export interface Product {
  entry: CatalogueEntry;
  /** The name without its size, e.g. "Oat Biscuits". */
  core: string;
  sizeText: string | null;
  brand: BrandLook;
  look: PackLook;
  /** Can hang from a peg hook. */
  pegable: boolean;
  /** Price this store charges when the catalogue has no expected price. */
  basePrice: number;
}

type Dept = 'food' | 'drinks' | 'household' | 'personal';
type Size = readonly [number, string];

interface Template {
  dept: Dept;
  cat: string;
  sub: string;
  names: readonly string[];
  shape: PackShape;
  w: readonly [number, number];
  h: readonly [number, number];
  sizes: readonly Size[];
  gbp: readonly [number, number];
  peg?: boolean;
}

const TEMPLATES: readonly Template[] = [
  {
    dept: 'food',
    cat: 'Food Cupboard',
    sub: 'Biscuits',
    names: [
      'Oat Biscuits',
      'Chocolate Digestives',
      'Ginger Snaps',
      'Butter Shortbread',
      'Fig Rolls',
      'Lemon Crunch Biscuits',
      'Coconut Rings',
    ],
    shape: 'box',
    w: [14, 19],
    h: [15, 21],
    sizes: [
      [200, 'g'],
      [300, 'g'],
      [400, 'g'],
    ],
    gbp: [0.85, 2.2],
  },
  {
    dept: 'food',
    cat: 'Breakfast',
    sub: 'Cereal',
    names: [
      'Honey Oat Clusters',
      'Bran Flakes',
      'Fruit & Nut Muesli',
      'Cocoa Rice Pops',
      'Porridge Oats',
      'Granola Crunch',
      'Corn Flakes',
    ],
    shape: 'tall-box',
    w: [19, 26],
    h: [26, 33],
    sizes: [
      [375, 'g'],
      [500, 'g'],
      [750, 'g'],
    ],
    gbp: [1.6, 3.9],
  },
  {
    dept: 'food',
    cat: 'Food Cupboard',
    sub: 'Pasta & Rice',
    names: ['Penne Rigate', 'Spaghetti', 'Fusilli', 'Basmati Rice', 'Long Grain Rice', 'Egg Noodles', 'Macaroni'],
    shape: 'bag',
    w: [13, 18],
    h: [20, 27],
    sizes: [
      [500, 'g'],
      [1, 'kg'],
    ],
    gbp: [0.7, 2.4],
  },
  {
    dept: 'food',
    cat: 'Food Cupboard',
    sub: 'Tins',
    names: [
      'Baked Beans',
      'Chopped Tomatoes',
      'Sweetcorn',
      'Chickpeas',
      'Tomato Soup',
      'Lentil Soup',
      'Red Kidney Beans',
    ],
    shape: 'can',
    w: [7.3, 8],
    h: [10.5, 12],
    sizes: [
      [400, 'g'],
      [410, 'g'],
    ],
    gbp: [0.45, 1.35],
  },
  {
    dept: 'food',
    cat: 'Food Cupboard',
    sub: 'Spreads',
    names: ['Strawberry Jam', 'Orange Marmalade', 'Smooth Peanut Butter', 'Clear Honey', 'Apricot Conserve'],
    shape: 'jar',
    w: [7, 9.5],
    h: [9, 13],
    sizes: [
      [340, 'g'],
      [454, 'g'],
    ],
    gbp: [1.2, 3.6],
  },
  {
    dept: 'food',
    cat: 'Food Cupboard',
    sub: 'Sauces',
    names: ['Tomato Ketchup', 'Mayonnaise', 'Brown Sauce', 'Sweet Chilli Sauce', 'Light Soy Sauce', 'Pasta Sauce'],
    shape: 'bottle',
    w: [6.5, 9],
    h: [17, 22],
    sizes: [
      [460, 'g'],
      [500, 'g'],
      [250, 'ml'],
    ],
    gbp: [1.0, 2.9],
  },
  {
    dept: 'food',
    cat: 'Hot Drinks',
    sub: 'Tea',
    names: ['Breakfast Tea', 'Green Tea', 'Peppermint Tea', 'Earl Grey Tea', 'Rooibos Tea'],
    shape: 'box',
    w: [12, 16],
    h: [11, 16],
    sizes: [
      [40, 'bags'],
      [80, 'bags'],
    ],
    gbp: [1.1, 3.5],
  },
  {
    dept: 'food',
    cat: 'Hot Drinks',
    sub: 'Coffee',
    names: ['Ground Coffee', 'Coffee Beans', 'Decaf Ground Coffee', 'Instant Coffee', 'Hot Chocolate'],
    shape: 'bag',
    w: [10, 14],
    h: [17, 24],
    sizes: [
      [227, 'g'],
      [500, 'g'],
    ],
    gbp: [2.5, 6],
  },
  {
    dept: 'food',
    cat: 'Snacks',
    sub: 'Crisps & Nuts',
    names: [
      'Sea Salt Crisps',
      'Salt & Vinegar Crisps',
      'Tortilla Chips',
      'Sweet & Salty Popcorn',
      'Salted Peanuts',
      'Trail Mix',
      'Pretzel Twists',
    ],
    shape: 'bag',
    w: [14, 21],
    h: [20, 29],
    sizes: [
      [100, 'g'],
      [150, 'g'],
      [200, 'g'],
    ],
    gbp: [0.9, 2.5],
    peg: true,
  },
  {
    dept: 'food',
    cat: 'Snacks',
    sub: 'Sweets',
    names: ['Fruit Gums', 'Mint Imperials', 'Jelly Beans', 'Fudge Pieces', 'Sour Cherries'],
    shape: 'bag',
    w: [11, 15],
    h: [16, 21],
    sizes: [
      [150, 'g'],
      [200, 'g'],
    ],
    gbp: [0.9, 1.9],
    peg: true,
  },
  {
    dept: 'food',
    cat: 'Baking',
    sub: 'Flour & Sugar',
    names: ['Plain Flour', 'Self Raising Flour', 'Caster Sugar', 'Granulated Sugar', 'Strong Bread Flour'],
    shape: 'bag',
    w: [12, 16],
    h: [20, 26],
    sizes: [
      [1, 'kg'],
      [1.5, 'kg'],
    ],
    gbp: [0.8, 1.9],
  },
  {
    dept: 'food',
    cat: 'Baking',
    sub: 'Baking Aids',
    names: ['Baking Powder', 'Bicarbonate of Soda', 'Cocoa Powder'],
    shape: 'tub',
    w: [6, 8],
    h: [8, 11],
    sizes: [
      [170, 'g'],
      [200, 'g'],
    ],
    gbp: [0.8, 2.4],
  },
  {
    dept: 'drinks',
    cat: 'Drinks',
    sub: 'Soft Drinks',
    names: ['Sparkling Water', 'Still Spring Water', 'Cola', 'Cloudy Lemonade', 'Orange Squash', 'Diet Cola'],
    shape: 'bottle',
    w: [8, 10.5],
    h: [27, 33],
    sizes: [
      [1.5, 'l'],
      [2, 'l'],
    ],
    gbp: [0.5, 1.9],
  },
  {
    dept: 'drinks',
    cat: 'Drinks',
    sub: 'Juice & Milk Drinks',
    names: ['Orange Juice', 'Apple Juice', 'Oat Drink', 'Soya Drink', 'Tropical Juice'],
    shape: 'carton',
    w: [7, 9.5],
    h: [20, 25],
    sizes: [[1, 'l']],
    gbp: [0.9, 2.3],
  },
  {
    dept: 'drinks',
    cat: 'Drinks',
    sub: 'Cans',
    names: ['Ginger Beer', 'Sparkling Lemon', 'Cherry Cola', 'Iced Coffee'],
    shape: 'can',
    w: [6.4, 6.8],
    h: [11.4, 12.3],
    sizes: [
      [330, 'ml'],
      [250, 'ml'],
    ],
    gbp: [0.6, 1.5],
  },
  {
    dept: 'household',
    cat: 'Household',
    sub: 'Laundry',
    names: ['Non-Bio Liquid', 'Bio Liquid', 'Fabric Conditioner', 'Colour Care Liquid'],
    shape: 'jug',
    w: [14, 19],
    h: [22, 29],
    sizes: [
      [1, 'l'],
      [1.5, 'l'],
    ],
    gbp: [3, 7.5],
  },
  {
    dept: 'household',
    cat: 'Household',
    sub: 'Laundry',
    names: ['Washing Powder', 'Laundry Capsules'],
    shape: 'box',
    w: [18, 24],
    h: [19, 26],
    sizes: [
      [24, 'pack'],
      [38, 'pack'],
    ],
    gbp: [4, 9],
  },
  {
    dept: 'household',
    cat: 'Household',
    sub: 'Cleaning',
    names: ['Washing-Up Liquid', 'Lemon Washing-Up Liquid', 'Thick Bleach', 'Floor Cleaner'],
    shape: 'bottle',
    w: [6.5, 8.5],
    h: [20, 27],
    sizes: [
      [450, 'ml'],
      [750, 'ml'],
    ],
    gbp: [0.8, 2.4],
  },
  {
    dept: 'household',
    cat: 'Household',
    sub: 'Cleaning',
    names: ['Multi-Surface Spray', 'Glass Cleaner', 'Bathroom Mousse', 'Kitchen Degreaser'],
    shape: 'trigger',
    w: [9, 11],
    h: [25, 29],
    sizes: [
      [500, 'ml'],
      [750, 'ml'],
    ],
    gbp: [1, 3.2],
  },
  {
    dept: 'household',
    cat: 'Household',
    sub: 'Dishwasher',
    names: ['Dishwasher Tablets', 'Dishwasher Pods'],
    shape: 'box',
    w: [15, 20],
    h: [11, 16],
    sizes: [
      [30, 'pack'],
      [60, 'pack'],
    ],
    gbp: [3, 8],
  },
  {
    dept: 'household',
    cat: 'Household',
    sub: 'Cleaning Tools',
    names: ['Sponge Scourers', 'Microfibre Cloths', 'Rubber Gloves Medium'],
    shape: 'card',
    w: [10, 13],
    h: [16, 21],
    sizes: [
      [3, 'pack'],
      [6, 'pack'],
    ],
    gbp: [0.8, 2.5],
    peg: true,
  },
  {
    dept: 'household',
    cat: 'Household',
    sub: 'Foil & Wraps',
    names: ['Aluminium Foil', 'Cling Film', 'Baking Paper', 'Freezer Bags'],
    shape: 'long-box',
    w: [29, 33],
    h: [5, 6.5],
    sizes: [
      [10, 'm'],
      [20, 'm'],
      [30, 'm'],
    ],
    gbp: [0.9, 2.8],
  },
  {
    dept: 'household',
    cat: 'Household',
    sub: 'Batteries',
    names: ['AA Batteries', 'AAA Batteries', 'C Batteries'],
    shape: 'card',
    w: [9, 11],
    h: [14, 18],
    sizes: [
      [4, 'pack'],
      [8, 'pack'],
    ],
    gbp: [2.5, 7],
    peg: true,
  },
  {
    dept: 'household',
    cat: 'Household',
    sub: 'Paper',
    names: ['Facial Tissues', 'Pocket Tissues'],
    shape: 'box',
    w: [22, 24],
    h: [8, 11],
    sizes: [
      [80, 'sheets'],
      [100, 'sheets'],
    ],
    gbp: [0.9, 2.2],
  },
  {
    dept: 'personal',
    cat: 'Personal Care',
    sub: 'Hair',
    names: [
      'Argan Oil Shampoo',
      'Anti-Dandruff Shampoo',
      'Coconut Conditioner',
      '2 in 1 Shampoo',
      'Volume Conditioner',
    ],
    shape: 'bottle',
    w: [6.5, 8],
    h: [18, 23],
    sizes: [
      [250, 'ml'],
      [400, 'ml'],
    ],
    gbp: [1.5, 4.5],
  },
  {
    dept: 'personal',
    cat: 'Personal Care',
    sub: 'Oral Care',
    names: ['Mint Toothpaste', 'Whitening Toothpaste', 'Sensitive Toothpaste'],
    shape: 'box',
    w: [4.5, 5.5],
    h: [17, 20],
    sizes: [
      [75, 'ml'],
      [100, 'ml'],
    ],
    gbp: [1, 3.5],
  },
  {
    dept: 'personal',
    cat: 'Personal Care',
    sub: 'Oral Care',
    names: ['Fresh Mint Mouthwash', 'Alcohol Free Mouthwash'],
    shape: 'bottle',
    w: [7.5, 9],
    h: [20, 24],
    sizes: [[500, 'ml']],
    gbp: [1.5, 4],
  },
  {
    dept: 'personal',
    cat: 'Personal Care',
    sub: 'Oral Care',
    names: ['Medium Toothbrush', 'Soft Toothbrush', 'Mint Dental Floss'],
    shape: 'card',
    w: [5, 7],
    h: [18, 22],
    sizes: [[1, 'none']],
    gbp: [1, 3],
    peg: true,
  },
  {
    dept: 'personal',
    cat: 'Personal Care',
    sub: 'Bath & Shower',
    names: ['Citrus Shower Gel', 'Oat Milk Shower Cream', 'Sea Minerals Body Wash'],
    shape: 'bottle',
    w: [6.5, 8],
    h: [17, 22],
    sizes: [
      [250, 'ml'],
      [500, 'ml'],
    ],
    gbp: [0.9, 3.2],
  },
  {
    dept: 'personal',
    cat: 'Personal Care',
    sub: 'Bath & Shower',
    names: ['Aloe Hand Wash', 'Lavender Hand Wash', 'Olive Hand Wash'],
    shape: 'pump',
    w: [7, 8.5],
    h: [17, 20],
    sizes: [
      [250, 'ml'],
      [300, 'ml'],
    ],
    gbp: [0.8, 2.5],
  },
  {
    dept: 'personal',
    cat: 'Personal Care',
    sub: 'Deodorant',
    names: ['Fresh Deodorant Spray', 'Sport Antiperspirant', 'Unscented Deodorant'],
    shape: 'spray',
    w: [4.8, 5.4],
    h: [17, 20],
    sizes: [
      [150, 'ml'],
      [250, 'ml'],
    ],
    gbp: [1.2, 3.8],
  },
  {
    dept: 'personal',
    cat: 'Personal Care',
    sub: 'Skin Care',
    names: ['Moisturising Cream', 'Cocoa Butter Lotion', 'Aqueous Cream'],
    shape: 'tub',
    w: [8, 10],
    h: [7, 10],
    sizes: [
      [200, 'ml'],
      [400, 'ml'],
    ],
    gbp: [1.2, 4],
  },
  {
    dept: 'personal',
    cat: 'Personal Care',
    sub: 'Skin Care',
    names: ['Cherry Lip Balm', 'Original Lip Balm'],
    shape: 'card',
    w: [6, 8],
    h: [11, 14],
    sizes: [[4.8, 'g']],
    gbp: [0.9, 2.2],
    peg: true,
  },
];

const US_WORDS: readonly (readonly [RegExp, string])[] = [
  [/Crisps/, 'Chips'],
  [/Biscuits/, 'Cookies'],
  [/Aluminium/, 'Aluminum'],
  [/Washing-Up Liquid/, 'Dish Soap'],
  [/Colour/, 'Color'],
  [/Fabric Conditioner/, 'Fabric Softener'],
  [/Plain Flour/, 'All-Purpose Flour'],
  [/Self Raising/, 'Self-Rising'],
  [/Caster Sugar/, 'Superfine Sugar'],
  [/Chopped Tomatoes/, 'Diced Tomatoes'],
  [/Sweetcorn/, 'Whole Kernel Corn'],
  [/Moisturising/, 'Moisturizing'],
  [/Microfibre/, 'Microfiber'],
  [/Bicarbonate of Soda/, 'Baking Soda'],
];

const PRE = [
  'Mar',
  'Hol',
  'Bren',
  'Cal',
  'Dun',
  'Fal',
  'Gor',
  'Kes',
  'Lin',
  'Mor',
  'Nor',
  'Ost',
  'Pell',
  'Quin',
  'Rav',
  'Sel',
  'Tor',
  'Vel',
  'Wen',
  'Yar',
  'Ald',
  'Bel',
  'Cor',
  'Ev',
  'Fen',
  'Hart',
  'Ash',
  'Kin',
  'Lark',
  'Tam',
  'Wil',
  'Grel',
];
const SUF = [
  'wick',
  'dale',
  'ford',
  'mere',
  'ton',
  'ley',
  'brook',
  'stead',
  'holm',
  'vale',
  'ridge',
  'well',
  'by',
  'wood',
  'croft',
  'haven',
  'field',
  'more',
  'gate',
  'hurst',
];
const SURNAMES = [
  'Finch',
  'Hale',
  'Rowe',
  'Platt',
  'Marsh',
  'Vance',
  'Crane',
  'Lowe',
  'Fisk',
  'Dunn',
  'Penn',
  'Bright',
  'Oakes',
  'Tull',
];
const WORDS = [
  'Acorn',
  'Meadow',
  'Harbour',
  'Juniper',
  'Copper',
  'Saffron',
  'Willow',
  'Bramble',
  'Pebble',
  'Clover',
  'Maple',
  'Ember',
  'Orchard',
  'Fable',
  'Tidal',
  'Sunny',
  'Golden',
  'Northern',
  'Heather',
  'Linden',
];
const DEPT_PATTERNS: Readonly<Record<Dept, readonly string[]>> = {
  food: ['{x} Farm', '{w} Kitchen', 'Little {w}', '{w} & {s}', '{x}', '{x} Mill', 'Old {x}'],
  drinks: ['{w} Springs', '{x}', '{x} Brewing Co', '{w} Fizz', '{w} Valley'],
  household: ['{w} Home', '{x}', 'Brightway', '{w}clean', 'Tidy {w}', '{x} Household'],
  personal: ['{w} Naturals', 'Pure {w}', '{x} Labs', 'Dr. {s}', '{x}', '{w} & {s}'],
};
const STORE_BRANDS = ['Everyday Basics', 'Shopwise', 'Basket & Co', 'Market Choice', 'Valuline', 'Homefield Select'];

function brandName(rng: Rng, dept: Dept): string {
  const x = rng.pick(PRE) + rng.pick(SUF);
  return rng
    .pick(DEPT_PATTERNS[dept])
    .replace('{x}', x)
    .replace('{w}', rng.pick(WORDS))
    .replace('{s}', rng.pick(SURNAMES));
}

function brandLook(rng: Rng): BrandLook {
  const hue = rng.float(0, 360);
  const badge = rng.weighted<BrandLook['badge']>([
    ['none', 4],
    ['ellipse', 2],
    ['ribbon', 1],
    ['box', 2],
    ['underline', 1],
  ]);
  return {
    font: rng.pick(ALL_FONTS),
    bold: rng.chance(0.7),
    italic: rng.chance(0.25),
    upper: rng.chance(0.45),
    spacing: rng.chance(0.3) ? rng.float(0.03, 0.12) : 0,
    colour: hsl(hue, rng.float(0.5, 0.9), rng.float(0.22, 0.45)),
    badge,
    badgeColour: rng.chance(0.5)
      ? '#ffffff'
      : hsl(hue + rng.pick([0, 30, 180]), rng.float(0.5, 0.9), rng.float(0.5, 0.85)),
    hue,
  };
}

function liquidFor(name: string, rng: Rng): string | null {
  if (/Water/.test(name)) return rng.pick(['#cfe6f2', '#d8eef5', '#bcdcec']);
  if (/Cola/.test(name)) return '#3a1c10';
  if (/Lemonade|Lemon/.test(name)) return '#f2efc8';
  if (/Squash/.test(name)) return '#f39a1e';
  return null;
}

function packLook(t: Template, name: string, brand: BrandLook, rng: Rng): PackLook {
  const hue = rng.chance(0.45) ? brand.hue + rng.float(-20, 20) : rng.float(0, 360);
  const tone = rng.weighted([
    ['vivid', 5],
    ['pastel', 3],
    ['dark', 2],
    ['white', 2],
  ] as const);
  const body =
    tone === 'vivid'
      ? hsl(hue, rng.float(0.55, 0.95), rng.float(0.38, 0.55))
      : tone === 'pastel'
        ? hsl(hue, rng.float(0.35, 0.75), rng.float(0.72, 0.88))
        : tone === 'dark'
          ? hsl(hue, rng.float(0.3, 0.7), rng.float(0.1, 0.24))
          : hsl(hue, 0.1, rng.float(0.93, 0.98));
  const accent = rng.chance(0.5)
    ? hsl(hue + rng.pick([150, 180, 210, 40]), rng.float(0.5, 0.95), rng.float(0.4, 0.65))
    : shade(body, tone === 'dark' ? 0.35 : -0.35);
  return {
    shape: t.shape,
    widthCm: rng.float(t.w[0], t.w[1]),
    heightCm: rng.float(t.h[0], t.h[1]),
    body,
    accent,
    ink: ink(body),
    motif: rng.pick(['band', 'stripe', 'circle', 'wave', 'dots', 'split', 'plain'] as const),
    liquid: t.shape === 'bottle' && t.dept === 'drinks' ? liquidFor(name, rng) : null,
    cap: rng.pick(['#f4f4f4', '#222222', shade(body, -0.3), accent, '#c8102e', '#1b5fbf']),
    nameFont: rng.pick(ALL_FONTS),
    nameUpper: rng.chance(0.4),
  };
}

function trimNumber(v: number): string {
  return String(Math.round(v * 10) / 10);
}

/** A metric size as this currency's shops state it. */
function localSize(size: Size, c: Currency): [number | null, string | null] {
  const [v, u] = size;
  if (u === 'none') return [null, null];
  if (c === 'USD') {
    if (u === 'g') return v >= 900 ? [Math.round(v / 45.36) / 10, 'lb'] : [Math.round(v / 2.835) / 10, 'oz'];
    if (u === 'kg') return [Math.round(v * 22.05) / 10, 'lb'];
    if (u === 'ml') return [Math.round(v / 2.957) / 10, 'fl oz'];
    if (u === 'l') return v >= 1.5 ? [v, 'l'] : [Math.round((v * 1000) / 2.957) / 10, 'fl oz'];
    if (u === 'm') return [Math.round(v * 3.281), 'ft'];
    if (u === 'pack' || u === 'bags' || u === 'sheets') return [v, 'ct'];
  }
  if (c === 'JPY' && u === 'pack') return [v, 'pcs'];
  return [v, u];
}

function sizeText(v: number, u: string, c: Currency): string {
  switch (u) {
    case 'g':
    case 'kg':
    case 'ml':
    case 'm':
      return `${trimNumber(v)}${u}`;
    case 'l':
      return c === 'USD' ? `${trimNumber(v)} L` : `${trimNumber(v)}L`;
    case 'pack':
      return `${v} Pack`;
    case 'bags':
      return `${v} Bags`;
    case 'sheets':
      return `${v} Sheets`;
    default:
      return `${trimNumber(v)} ${u}`;
  }
}

/** A size in grams, millilitres or items, to compare sizes of one template. */
function baseAmount([v, u]: Size): number {
  return u === 'kg' || u === 'l' ? v * 1000 : v;
}

const CURRENCY_RATE: Readonly<Record<Currency, number>> = { GBP: 1, EUR: 1.17, USD: 1.3, JPY: 185 };

function gtin(rng: Rng, c: Currency): string {
  if (c === 'USD') return withCheckDigit(rng.pick(['0', '0', '0', '6', '7', '8']) + rng.digits(10));
  const prefix =
    c === 'GBP'
      ? '50'
      : c === 'JPY'
        ? rng.pick(['45', '49'])
        : rng.pick(['40', '41', '42', '43', '30', '34', '37', '80', '84', '87', '54']);
  return withCheckDigit(prefix + rng.digits(10));
}

/**
 * A catalogue of `total` products (roughly) split over `currencies`; each currency's products are the
 * ones its photos show.
 */
export function buildCatalogue(rng: Rng, currencies: readonly Currency[], total: number): Product[] {
  const brands: Record<Dept, { name: string; look: BrandLook }[]> = {
    food: [],
    drinks: [],
    household: [],
    personal: [],
  };
  const used = new Set<string>();
  const stores = rng
    .shuffle(STORE_BRANDS)
    .slice(0, 2)
    .map((name) => ({ name, look: brandLook(rng) }));
  for (const dept of Object.keys(brands) as Dept[]) {
    const count = dept === 'food' ? rng.int(6, 9) : rng.int(4, 6);
    while (brands[dept].length < count) {
      const name = brandName(rng, dept);
      if (used.has(name)) continue;
      used.add(name);
      if (stores.some((st) => st.name === name)) continue;
      brands[dept].push({ name, look: brandLook(rng) });
    }
    brands[dept].push(...stores);
  }

  const variants = TEMPLATES.flatMap((t) => t.names.map((n) => ({ t, n })));
  const products: Product[] = [];
  const codes = new Set<string>();
  const skus = new Set<string>();
  const perCurrency = Math.ceil(total / currencies.length);
  for (const c of currencies) {
    const seen = new Set<string>();
    for (const { t, n } of rng.shuffle(variants)) {
      if (products.filter((p) => p.entry.currency === c).length >= perCurrency) break;
      const core = c === 'USD' ? US_WORDS.reduce((s, [re, to]) => s.replace(re, to), n) : n;
      if (seen.has(core)) continue;
      seen.add(core);
      const brand = rng.pick(brands[t.dept]);
      const sizeIndex = rng.int(0, t.sizes.length - 1);
      const size = t.sizes[sizeIndex];
      const [sizeValue, sizeUnit] = localSize(size, c);
      const text = sizeValue !== null && sizeUnit !== null ? sizeText(sizeValue, sizeUnit, c) : null;
      const gbp = rng.float(t.gbp[0], t.gbp[1]) * Math.pow(baseAmount(size) / baseAmount(t.sizes[0]), 0.75);
      const basePrice = charm(gbp * CURRENCY_RATE[c], c, rng);
      let upc = gtin(rng, c);
      while (codes.has(upc)) upc = gtin(rng, c);
      codes.add(upc);
      let sku = `T3-${rng.digits(6)}`;
      while (skus.has(sku)) sku = `T3-${rng.digits(6)}`;
      skus.add(sku);
      const noCategory = rng.chance(0.05);
      products.push({
        entry: {
          sku,
          upc,
          brand: brand.name,
          name: text ? `${core} ${text}` : core,
          category: noCategory ? null : t.cat,
          subcategory: noCategory || rng.chance(0.06) ? null : t.sub,
          sizeValue,
          sizeUnit,
          expectedPrice: rng.chance(0.06) ? null : roundMoney(basePrice, c),
          currency: c,
        },
        core,
        sizeText: text,
        brand: brand.look,
        look: packLook(t, core, brand.look, rng),
        pegable: t.peg === true,
        basePrice,
      });
    }
  }
  return products;
}
