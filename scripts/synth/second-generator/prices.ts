// What a label says about money: the store's way of writing a price (£1.29 / 99p, 1,29 € / €1.29,
// ¥198 / 198円), the printed regular price (usually the catalogue's, sometimes a newer one), and the
// promotions (WAS/NOW, multibuy) with the unit price the evaluator expects for them.
import { type Currency, type Product, shelfRound } from './catalogue.js';
import { type Rng } from './random.js';

export type PriceStyle = {
  currency: Currency;
  /** EUR: "1,29 €" (after) or "€1.29" (first); JPY: "¥198" (first) or "198円" (kanji). */
  form: 'first' | 'after' | 'kanji';
  /** Prices under one pound / dollar as "99p" / "99¢". */
  minorUnit: boolean;
};

export type Promo = { kind: 'none' } | { kind: 'wasNow'; now: number } | { kind: 'multi'; qty: number; total: number };

export type ShelfPrice = {
  /** The regular price printed on the label (the truth `price`). */
  regular: number;
  promo: Promo;
  /** The promotional unit price (truth `discountedPrice`), null without a promotion. */
  discounted: number | null;
  /** True when the printed regular price is not the catalogue's expectedPrice. */
  changed: boolean;
};

export function choosePriceStyle(currency: Currency, rng: Rng): PriceStyle {
  if (currency === 'EUR') return { currency, form: rng.chance(0.65) ? 'after' : 'first', minorUnit: false };
  if (currency === 'JPY') return { currency, form: rng.chance(0.5) ? 'kanji' : 'first', minorUnit: false };
  return { currency, form: 'first', minorUnit: rng.chance(currency === 'GBP' ? 0.75 : 0.4) };
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/** A money amount as printed. `whole` drops ".00" where shops do ("2 for £3"). */
export function money(value: number, style: PriceStyle, whole = false): string {
  const v = round2(value);
  const isWhole = Math.abs(v - Math.round(v)) < 0.001;
  switch (style.currency) {
    case 'JPY':
      return style.form === 'kanji' ? `${Math.round(v)}円` : `¥${Math.round(v)}`;
    case 'GBP':
      if (style.minorUnit && v < 1) return `${Math.round(v * 100)}p`;
      return whole && isWhole ? `£${Math.round(v)}` : `£${v.toFixed(2)}`;
    case 'USD':
      if (style.minorUnit && v < 1) return `${Math.round(v * 100)}¢`;
      return whole && isWhole ? `$${Math.round(v)}` : `$${v.toFixed(2)}`;
    case 'EUR':
      if (style.form === 'after') return `${v.toFixed(2).replace('.', ',')} €`;
      return whole && isWhole ? `€${Math.round(v)}` : `€${v.toFixed(2)}`;
  }
}

export const wasText = (p: ShelfPrice, s: PriceStyle) => `WAS ${money(p.regular, s)}`;
export const eachText = (p: ShelfPrice, s: PriceStyle) => `${money(p.regular, s)} each`;

/** "NOW £1.50" or "2 for £3": the promotion's headline; the plain price without a promotion. */
export function headline(p: ShelfPrice, s: PriceStyle): string {
  if (p.promo.kind === 'wasNow') return `NOW ${money(p.promo.now, s)}`;
  if (p.promo.kind === 'multi') return `${p.promo.qty} for ${money(p.promo.total, s, true)}`;
  return money(p.regular, s);
}

/** Small print: price per 100 g / ml, per kg / L, or per item. */
export function unitPriceText(product: Product, price: number, s: PriceStyle): string {
  const { sizeValue: v, sizeUnit: u } = product;
  let per: number;
  let unit: string;
  if (u === 'g' || u === 'ml') {
    per = (price / v) * 100;
    unit = `100${u}`;
  } else if (u === 'kg' || u === 'L') {
    per = price / v;
    unit = `1${u}`;
  } else {
    per = price / v;
    unit = u === 'bags' ? 'bag' : u === 'rolls' ? 'roll' : 'each';
  }
  const amount = s.currency === 'JPY' ? money(Math.max(1, Math.round(per)), s) : money(Math.max(0.01, per), s);
  if (s.currency === 'EUR' && s.form === 'after') return `${unit === 'each' ? '1 St.' : unit} = ${amount}`;
  return unit === 'each' ? `${amount} each` : `${amount} per ${unit}`;
}

/** Nice multibuy totals: whole or half units of money, multiples of 10 yen per item. */
function multibuyTotal(regular: number, qty: number, currency: Currency, rng: Rng): number | null {
  const full = regular * qty;
  const target = full * rng.float(0.68, 0.88);
  let total: number;
  if (currency === 'JPY') total = Math.floor(target / (10 * qty)) * 10 * qty;
  else if (target >= 2) total = Math.floor(target * 2) / 2;
  else total = Math.floor(target * 10) / 10;
  // Worth it, and more than one pack costs alone.
  return total < full - 0.001 && total > regular + 0.001 ? round2(total) : null;
}

export function choosePrice(product: Product, rng: Rng, promoRate: number): ShelfPrice {
  const c = product.currency;
  let regular = product.expectedPrice;
  let changed = false;
  if (rng.chance(0.12)) {
    // A price change since the catalogue was exported: the label is the truth.
    const next = shelfRound(regular * rng.float(0.85, 1.2), c, rng);
    if (next !== regular && next > 0) {
      regular = next;
      changed = true;
    }
  }
  let promo: Promo = { kind: 'none' };
  if (rng.chance(promoRate)) {
    if (rng.chance(0.5)) {
      let now = shelfRound(regular * rng.float(0.6, 0.88), c, rng);
      if (now >= regular) now = c === 'JPY' ? regular - 20 : round2(regular - 0.2);
      if (now > 0) promo = { kind: 'wasNow', now };
    } else {
      const qty = rng.pick([2, 2, 2, 3]);
      const total = multibuyTotal(regular, qty, c, rng);
      if (total !== null) promo = { kind: 'multi', qty, total };
    }
  }
  const discounted =
    promo.kind === 'wasNow'
      ? promo.now
      : promo.kind === 'multi'
        ? c === 'JPY'
          ? Math.round(promo.total / promo.qty)
          : round2(promo.total / promo.qty)
        : null;
  return { regular, promo, discounted, changed };
}
