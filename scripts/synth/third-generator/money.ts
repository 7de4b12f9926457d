// Prices as shelf labels print them: currency formats, charm prices, unit prices and offers.
import type { Rng } from './random.js';
import type { Span } from './text.js';

export type Currency = 'GBP' | 'EUR' | 'USD' | 'JPY';

/** How one store prints money. */
export interface MoneyStyle {
  /** "1,29 €" rather than "€1.29" (EUR only). */
  euroAfter: boolean;
  /** "89p" / "89¢" for prices under one pound or dollar. */
  smallUnit: boolean;
  /** Pence or cents raised and smaller in the big price. */
  raised: boolean;
  /** "£3.00" rather than "£3" for whole amounts in offers. */
  wholeDecimals: boolean;
}

export function roundMoney(v: number, c: Currency): number {
  return c === 'JPY' ? Math.round(v) : Math.round(v * 100) / 100;
}

function group3(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A price as printed in running text, e.g. "£1.29", "89p", "1,29 €", "$3.49", "¥1,280". */
export function fmt(v: number, c: Currency, st: MoneyStyle, whole = false): string {
  const cents = Math.round(v * 100);
  const plain = whole && cents % 100 === 0 && !st.wholeDecimals ? String(cents / 100) : (cents / 100).toFixed(2);
  switch (c) {
    case 'GBP':
      return v < 1 && st.smallUnit ? `${cents}p` : `£${plain}`;
    case 'EUR':
      return st.euroAfter ? `${plain.replace('.', ',')} €` : `€${plain}`;
    case 'USD':
      return v < 1 && st.smallUnit ? `${cents}¢` : `$${plain}`;
    case 'JPY':
      return `¥${group3(Math.round(v))}`;
  }
}

/** The big price on a label as spans (raised pence, small currency signs). */
export function priceSpans(v: number, c: Currency, st: MoneyStyle): Span[] {
  const cents = Math.round(v * 100);
  const major = String(Math.floor(cents / 100));
  const minor = String(cents % 100).padStart(2, '0');
  const S = (t: string, rel = 1, raise = 0): Span => ({ t, rel, raise });
  switch (c) {
    case 'GBP':
      if (v < 1 && st.smallUnit) return [S(String(cents)), S('p', 0.6)];
      return st.raised ? [S('£', 0.72), S(major), S(minor, 0.52, 0.4)] : [S(`£${major}.${minor}`)];
    case 'EUR':
      if (st.euroAfter)
        return st.raised ? [S(major), S(minor, 0.52, 0.4), S(' €', 0.45, 0.4)] : [S(`${major},${minor}`), S(' €', 0.6)];
      return st.raised ? [S('€', 0.72), S(major), S(minor, 0.52, 0.4)] : [S(`€${major}.${minor}`)];
    case 'USD':
      if (v < 1 && st.smallUnit) return [S(String(cents)), S('¢', 0.55, 0.35)];
      return st.raised ? [S('$', 0.5, 0.42), S(major), S(minor, 0.5, 0.42)] : [S(`$${major}.${minor}`)];
    case 'JPY':
      return [S('¥', 0.72), S(group3(Math.round(v)))];
  }
}

const ENDINGS: Readonly<Record<Exclude<Currency, 'JPY'>, readonly number[]>> = {
  GBP: [0, 0.25, 0.29, 0.39, 0.45, 0.49, 0.5, 0.59, 0.65, 0.69, 0.75, 0.79, 0.85, 0.89, 0.95, 0.99],
  EUR: [0.19, 0.29, 0.39, 0.49, 0.59, 0.69, 0.79, 0.89, 0.95, 0.99],
  USD: [0.29, 0.49, 0.59, 0.79, 0.89, 0.99],
};

/** A shop-like price near `target` (…9 endings, yen ending in 8 or 80). */
export function charm(target: number, c: Currency, rng: Rng): number {
  const t = target * rng.float(0.96, 1.04);
  if (c === 'JPY') {
    if (t < 1000) return Math.max(58, Math.round(t / 10) * 10 - 2);
    return Math.round(t / 100) * 100 - 20;
  }
  let best = 0;
  for (let base = Math.max(0, Math.floor(t) - 1); base <= Math.floor(t) + 1; base++) {
    for (const e of ENDINGS[c]) {
      const v = base + e;
      if (v >= 0.25 && Math.abs(v - t) < Math.abs(best - t)) best = v;
    }
  }
  return roundMoney(best, c);
}

export interface UnitPrice {
  value: string;
  per: string;
  text: string;
}

const COUNT_UNITS: ReadonlySet<string> = new Set(['pack', 'bags', 'ct', 'pcs', 'sheets', 'rolls']);

function unitAmount(v: number, c: Currency, st: MoneyStyle): string {
  if (c === 'JPY') return v < 10 ? `¥${v.toFixed(1)}` : `¥${group3(Math.round(v))}`;
  if (c === 'USD') return v < 1 ? `${(v * 100).toFixed(1)}¢` : `$${v.toFixed(2)}`;
  if (c === 'GBP') return v < 1 && st.smallUnit ? `${(v * 100).toFixed(v < 0.1 ? 1 : 0)}p` : `£${v.toFixed(2)}`;
  return st.euroAfter ? `${v.toFixed(2).replace('.', ',')} €` : `€${v.toFixed(2)}`;
}

/** The unit price line, or null when the product has no size to divide by. */
export function unitPrice(
  price: number,
  sizeValue: number | null,
  sizeUnit: string | null,
  c: Currency,
  st: MoneyStyle,
  rng: Rng,
): UnitPrice | null {
  if (sizeValue === null || sizeUnit === null || sizeValue <= 0) return null;
  let per: string;
  let amount: number;
  if (sizeUnit === 'g') {
    const small = c === 'JPY' || sizeValue < 250 || rng.chance(0.25);
    per = small ? '100g' : 'kg';
    amount = small ? (price / sizeValue) * 100 : (price / sizeValue) * 1000;
  } else if (sizeUnit === 'kg') {
    per = 'kg';
    amount = price / sizeValue;
  } else if (sizeUnit === 'ml') {
    const small = c === 'JPY' || sizeValue < 250 || rng.chance(0.2);
    per = small ? '100ml' : c === 'GBP' ? 'litre' : 'l';
    amount = small ? (price / sizeValue) * 100 : (price / sizeValue) * 1000;
  } else if (sizeUnit === 'l') {
    per = c === 'GBP' ? 'litre' : 'l';
    amount = price / sizeValue;
  } else if (COUNT_UNITS.has(sizeUnit)) {
    per = c === 'USD' ? 'ct' : 'each';
    amount = price / sizeValue;
  } else {
    per = sizeUnit;
    amount = price / sizeValue;
  }
  const value = unitAmount(amount, c, st);
  let text: string;
  if (per === 'each' && c !== 'USD') text = rng.chance(0.5) ? `${value} each` : `${value} per item`;
  else if (c === 'EUR') text = rng.pick([`${value}/${per}`, `1 ${per} = ${value}`, `(${value} / ${per})`]);
  else if (c === 'USD') text = rng.pick([`${value} per ${per}`, `${value}/${per}`]);
  else if (c === 'JPY') text = rng.pick([`${value}/${per}`, `${per} ${value}`]);
  else text = rng.pick([`${value}/${per}`, `${value} per ${per}`]);
  return { value, per: per === 'each' ? 'each' : `per ${per}`, text };
}

export type Offer =
  | { kind: 'multibuy'; n: number; total: number }
  | { kind: 'three-for-two' }
  | { kind: 'was-now'; now: number; half: boolean }
  | { kind: 'club'; member: number; title: string };

/** A believable offer on a product priced `price`. */
export function pickOffer(rng: Rng, price: number, c: Currency): Offer {
  const kind = rng.weighted<Offer['kind']>([
    ['multibuy', 4],
    ['three-for-two', c === 'GBP' ? 1 : 0],
    ['was-now', 4],
    ['club', 3],
  ]);
  if (kind === 'multibuy') {
    const n =
      c === 'USD'
        ? rng.weighted([
            [2, 5],
            [3, 3],
            [4, 1],
            [5, 1],
          ] as const)
        : rng.weighted([
            [2, 4],
            [3, 2],
          ] as const);
    let total: number;
    if (c === 'JPY') total = n * Math.max(10, Math.floor((price * rng.float(0.75, 0.9)) / 10) * 10);
    else if (c === 'USD') total = Math.floor(n * price * rng.float(0.75, 0.92));
    else total = Math.floor((n * price * rng.float(0.72, 0.92)) / 0.5) * 0.5;
    if (total > n * price * 0.5 && total < n * price) return { kind, n, total };
  }
  if (kind === 'three-for-two') return { kind };
  if (kind === 'club') {
    const member = charm(price * rng.float(0.75, 0.9), c, rng);
    if (member < price) {
      const title = rng.pick(
        c === 'USD'
          ? ['Member Price', 'Rewards Price', 'With Card']
          : ['Club Price', 'Member Price', 'Card Price', 'Loyalty Price'],
      );
      return { kind, member, title };
    }
  }
  const half = rng.chance(0.2);
  const now = half ? roundMoney(price / 2, c) : charm(price * rng.float(0.6, 0.85), c, rng);
  return { kind: 'was-now', now: now < price ? now : roundMoney(price * 0.75, c), half };
}

/** The price of one unit under the offer. */
export function offerUnitPrice(offer: Offer, price: number, c: Currency): number {
  switch (offer.kind) {
    case 'multibuy':
      return roundMoney(offer.total / offer.n, c);
    case 'three-for-two':
      return roundMoney((price * 2) / 3, c);
    case 'was-now':
      return offer.now;
    case 'club':
      return offer.member;
  }
}

/** "2 for £3", "2/$5", "3 for 2", … */
export function offerHeadline(offer: Offer, c: Currency, st: MoneyStyle, rng: Rng): string {
  if (offer.kind === 'three-for-two') return rng.pick(['3 for 2', '3 FOR 2', 'Buy 3 pay for 2']);
  if (offer.kind !== 'multibuy') return '';
  const total = fmt(offer.total, c, { ...st, smallUnit: false }, true);
  if (c === 'USD') return rng.chance(0.6) ? `${offer.n}/${total}` : `${offer.n} for ${total}`;
  return rng.pick([`${offer.n} for ${total}`, `${offer.n} FOR ${total}`, `Any ${offer.n} for ${total}`]);
}
