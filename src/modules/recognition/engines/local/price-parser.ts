export type LabelPrice = {
  price: number | null;
  discountedPrice: number | null;
  onSale: boolean;
  currency: string | null;
  /** "2 for £3.00": how many for the multi-buy price. */
  multiBuy: { quantity: number; total: number } | null;
};

const SYMBOLS: Record<string, string> = { '£': 'GBP', $: 'USD', '€': 'EUR', '¥': 'JPY', 円: 'JPY' };
const CODES = ['GBP', 'USD', 'EUR', 'JPY', 'CHF', 'SEK', 'NOK', 'DKK', 'PLN', 'CAD', 'AUD'];

/**
 * Amounts as labels print them: 2.49, £2.49, $1.99, 1,99 €, 1.234,50, 99p, 99¢, and yen, which has no
 * decimals: ¥198, 198円, ¥1,280. A bare integer is no price (sizes, counts): only with its yen sign,
 * or with tesseract's two-glyph misreads of 円 (`2987)`, `198F9`, `480F)`; a lone F or 7 is not, D356).
 * A yen sign between digits is a barcode's digit misread (`495687¥021078`), not a price (D363).
 */
const AMOUNT =
  /(?<cur1>[£$€¥])?\s?(?<int>\d{1,4})(?:[.,](?<dec>\d{2}))(?!\d)\s?(?<cur2>€|円|[A-Z]{3}\b)?|(?<pence>\d{1,2})p\b|(?<![\d.,])(?<cents>[1-9]\d)¢|(?<!\d)¥\s?(?<yen1>[1-9]\d{0,2}(?:,\d{3})+|[1-9]\d{0,5})(?![\d.,]?\d)|(?<![\d,])(?<yen2>\d{1,3}(?:,\d{3})+|\d{1,6})\s?円|(?<![\d.,])(?<yen3>\d{2,6})(?:F[)9]|7\))(?![\w)])/g;
/**
 * A price whose decimal point OCR lost (`$3 49`, `£ 1 49`, `1 29 €`: the point is a few pixels between
 * a label's big digits), read only beside its currency sign and only where the text shows no price
 * otherwise: a label's small print read as junk beside its price gives `£85 00` and `(£90 20` too.
 * Cents printed raised after the comma (`2,⁵⁹ €`) are read by the learned recognizer a space after it
 * (`3, 49`; its dictionary has no €): with the comma they are a price without the sign (D356).
 */
const SPACED =
  /(?<cur1>[£$€])\s?(?<int>\d{1,3}) (?<dec>\d{2})(?![\d.,]?\d)|(?<![\d.,])(?<int2>\d{1,3}) (?<dec2>\d{2})\s?€|(?<![\d.,])(?<int3>\d{1,3}), (?<dec3>\d{2})(?![\d.,]?\d)/g;
// "for" as OCR reads it in small print: tor, f0r; or a slash before the total's sign, as US shelves
// print it (`3/$5`; the sign tells it from a date, `21/07/26`). A yen total keeps its thousands
// (`3 for ¥1,020` was read as 1.02, D399).
const MULTI =
  /(?<qty>\d{1,2})\s*(?:[fFtT][oO0][rR]\s*(?<cur>[£$€¥])?|\/\s?(?<slashCur>[£$€¥]))\s?(?<int>\d{1,3}(?:,\d{3})+(?![.,]?\d)|\d{1,5})(?:[.,](?<dec>\d{2}))?(?:\s?円|(?<pence>p)\b)?/;
/**
 * A multi-buy whose quantity OCR could not read: the deal's big digit read as a letter or two (`i for£3`,
 * `ie for $4`, `Stor 4200]`), so "2 for $4 $2.99 each" gave no offer at all (D362).
 */
const MULTI_UNREAD =
  /(?<![\p{L}\p{N}])[iIlLeES|!]{1,2}\s*[fFtT][oO0][rR]\s*(?<cur>[£$€¥])?\s?(?<int>\d{1,5})(?:[.,](?<dec>\d{2}))?(?:\s?円)?/u;
const WAS_NOW = /\bWAS\b.*?\bNOW\b/i;
/**
 * What an offer label says beside its two prices, a member's price among them (`Clubcard Price`,
 * `Loyalty Price £1.39`, D381). Without any of it, a second price is the price by the measure whose
 * "per 100g" OCR did not read (`£0.74 per 1009`), not an offer.
 */
const OFFER =
  /\b(?:WAS|NOW|SAVE|OFFER|REDUCED|DROP|DEAL|SALE|SPECIAL|(?:MEMBERS?|LOYALTY|CLUB\w*|REWARDS?|CARD) PRICE)\b|%/i;

function round2(v: number) {
  return Math.round(v * 100) / 100;
}

/**
 * A price by the measure (`£0.83 per 100g`, `0,20 € / kg`, `100g = 0,20 €`), printed small under the
 * label's own price: not the product's price, nor an offer's second one. Tesseract left it out while
 * a label's symbol was read as junk beside it; read, it made `£1.65 … £0.83 per 100g` an offer.
 * Its small "per" is often read `ner` or `oer`: `¥99 ner 100g` was taken for a label's price (D364).
 */
function unitPrice(text: string, start: number, end: number): boolean {
  return (
    /^\s?(?:[pno]er\b|\/\s?\d*\s?(?:k?g|m?l|cl|ltr|lb|oz|m)\b)/i.test(text.slice(end)) ||
    /\d\s?(?:k?g|m?l|cl|l|ltr)\s?=\s?$/i.test(text.slice(0, start))
  );
}

/** `SAVE 0,40 €`: what an offer saves, beside its two prices, is neither of them (D399). */
const saving = (text: string, start: number) => /\bSAVE\s?$/i.test(text.slice(Math.max(0, start - 6), start));

/**
 * The price with tax printed beside the price without it (`¥238 incl. tax ¥257`, `¥257 (tax incl.)`,
 * `税込 ¥257`): the shelf's own price is the other one, the one the catalogue expects. Read as a second
 * price, the higher, it was taken for the regular price.
 */
function taxIncluded(text: string, start: number, end: number): boolean {
  return (
    /(?:\bincl?\.?\s?(?:tax|vat)|\b(?:tax|vat)\s?incl?\b\.?|税込み?)\s?[:(]?\s?$/i.test(
      text.slice(Math.max(0, start - 14), start),
    ) ||
    // After it only where no price follows the words: `¥238 incl. tax ¥257` names the second.
    /^\s?\(?(?:incl?\.?\s?(?:tax|vat)|(?:tax|vat)\s?incl?\b|税込)\.?\)?(?!\s?[£$€¥\d])/i.test(text.slice(end, end + 16))
  );
}

/** Reads the prices on one label's text. Returns null when the text holds no price. */
export function parseLabelPrices(text: string): LabelPrice | null {
  return readMultiUnread(text) ?? readPrices(text);
}

/**
 * A multi-buy whose quantity was misread (MULTI_UNREAD), beside the one price each: the quantity is the
 * least that makes the deal cheaper than that price. Deals here are 2 or 3 for a total under that many
 * at the price each, so "3 for £3" beside £1.29 each is 3 (2 would cost more than each), "2 for $4"
 * beside $2.99 is 2. Null where the text reads otherwise (its quantity, or no single price each).
 */
function readMultiUnread(text: string): LabelPrice | null {
  const folded = text.normalize('NFKC');
  if (MULTI.test(folded)) return null;
  const m = MULTI_UNREAD.exec(folded);
  if (!m) return null;
  const rest = readPrices(folded.replace(m[0], ' '));
  if (rest?.price == null || rest.discountedPrice !== null || rest.multiBuy) return null;
  const total = Number(`${m.groups!.int}.${m.groups!.dec ?? '00'}`);
  const quantity = [2, 3, 4, 5].find((q) => total / q < rest.price!);
  if (!quantity) return null;
  const currency = rest.currency ?? (m.groups!.cur ? (SYMBOLS[m.groups!.cur] ?? null) : null);
  return {
    price: rest.price,
    discountedPrice: round2(total / quantity),
    onSale: true,
    currency,
    multiBuy: { quantity, total },
  };
}

function readPrices(text: string): LabelPrice | null {
  // Compatibility forms folded first: the learned recognizer's dictionary (Chinese) prints the yen
  // sign full-width, `￥278`, which read as no price at all (D358).
  const normalized = text
    .normalize('NFKC')
    .replace(/[Oo](?=\d)|(?<=\d)[Oo]/g, '0')
    .replace(/\s+/g, ' ');
  let currency: string | null = null;
  const multiMatch = MULTI.exec(normalized);
  const multiBuy = multiMatch
    ? {
        quantity: Number(multiMatch.groups!.qty),
        // `2 for 60p`: pence.
        total:
          Number(`${multiMatch.groups!.int!.replace(/,/g, '')}.${multiMatch.groups!.dec ?? '00'}`) /
          (multiMatch.groups!.pence ? 100 : 1),
      }
    : null;
  // The deal's price each.
  const each = multiBuy ? round2(multiBuy.total / multiBuy.quantity) : null;
  const multiCur = multiMatch?.groups!.cur ?? multiMatch?.groups!.slashCur;
  if (multiCur) currency = SYMBOLS[multiCur] ?? null;
  const rest = multiMatch ? normalized.replace(multiMatch[0], ' ') : normalized;

  const amounts: number[] = [];
  // Prices with tax, kept apart: the price when the label's own was not read (taxIncluded).
  const withTax: number[] = [];
  for (const m of rest.matchAll(AMOUNT)) {
    const g = m.groups!;
    if (unitPrice(rest, m.index, m.index + m[0].length) || saving(rest, m.index)) continue;
    const yen = g.yen1 ?? g.yen2 ?? g.yen3;
    if ((yen || g.int) && taxIncluded(rest, m.index, m.index + m[0].length)) {
      withTax.push(Number((yen ?? `${g.int}.${g.dec}`).replace(/,/g, '')));
      const cur = yen ? '¥' : (g.cur1 ?? g.cur2);
      if (cur) currency ??= SYMBOLS[cur] ?? (CODES.includes(cur) ? cur : null);
      continue;
    }
    if (g.pence) {
      amounts.push(Number(g.pence) / 100);
      currency ??= 'GBP';
      continue;
    }
    // No currency from it: OCR reads a euro sign as ¢ too (`0,79 €` as `79¢`); the shelf's decides.
    if (g.cents) {
      amounts.push(Number(g.cents) / 100);
      continue;
    }
    if (yen) {
      amounts.push(Number(yen.replace(/,/g, '')));
      currency ??= 'JPY';
      continue;
    }
    amounts.push(Number(`${g.int}.${g.dec}`));
    const cur = g.cur1 ?? g.cur2;
    if (cur) currency ??= SYMBOLS[cur] ?? (CODES.includes(cur) ? cur : null);
  }
  if (amounts.length === 0) amounts.push(...withTax);
  if (amounts.length === 0 && !multiBuy)
    for (const m of rest.matchAll(SPACED)) {
      if (unitPrice(rest, m.index, m.index + m[0].length)) continue;
      const g = m.groups!;
      if (g.int3) {
        amounts.push(Number(`${g.int3}.${g.dec3}`));
        continue;
      }
      amounts.push(Number(`${g.int ?? g.int2}.${g.dec ?? g.dec2}`));
      currency ??= SYMBOLS[g.cur1 ?? '€']!;
    }
  if (amounts.length === 0 && !multiBuy) return null;

  if (amounts.length >= 2) {
    // Two prices on one label: the first is the old one on WAS/NOW labels; otherwise the higher is regular.
    const [a, b] = amounts as [number, number];
    const wasNow = WAS_NOW.test(rest);
    const [regular, now] = wasNow ? [a, b] : [Math.max(a, b), Math.min(a, b)];
    // Beside a multi-buy the lower amount is a price by the measure or by the piece (`0,27 € each`,
    // `100g ¥78`) more often than an offer of its own: the deal's price each is the offer (D399).
    if (each !== null && !wasNow && each < regular)
      return { price: regular, discountedPrice: each, onSale: true, currency, multiBuy };
    if (!multiBuy && !OFFER.test(rest))
      return { price: regular, discountedPrice: null, onSale: false, currency, multiBuy };
    if (regular !== now) return { price: regular, discountedPrice: now, onSale: true, currency, multiBuy };
    return { price: regular, discountedPrice: null, onSale: !!multiBuy, currency, multiBuy };
  }
  if (amounts.length === 1) {
    const price = amounts[0]!;
    if (each !== null) {
      return each < price
        ? { price, discountedPrice: each, onSale: true, currency, multiBuy }
        : { price, discountedPrice: null, onSale: false, currency, multiBuy };
    }
    return { price, discountedPrice: null, onSale: false, currency, multiBuy };
  }
  // Only a multi-buy price: the unit price it implies is all we know.
  return {
    price: null,
    discountedPrice: each,
    onSale: true,
    currency,
    multiBuy,
  };
}

/** One price as another (an expected price may come as a string from the catalogue): to the cent. */
export function samePrice(a: number | null, b: number | string | null): boolean {
  return a !== null && b !== null && Math.abs(a - Number(b)) < 0.005;
}

/** `shown` is `expected` read without its decimal point: a whole number, its price in cents ("$3²⁹" read `329`). */
const lostPoint = (shown: number | null, expected: number | string | null) =>
  shown !== null && Number.isInteger(shown) && shown >= 100 && samePrice(shown / 100, expected);

/** The price shown is the entry's expected price, exactly or with its decimal point lost. */
export const showsExpectedPrice = (shown: number | null, expected: number | string | null) =>
  samePrice(shown, expected) || lostPoint(shown, expected);

/**
 * The label's price and offer price as the named entry says they can be read:
 * - with the decimal point put back where the reading lost it: a whole number that is exactly the
 *   entry's expected price in cents ("$2.49" printed with raised cents and read "249"; D380). The
 *   offer price, a whole number too, lost its point the same way.
 * - without a price that is the entry's size and not its expected price ("3.5 OZ" read as 3.5, the
 *   size printed beside a price the reading lost; D381): no price rather than its size.
 */
export function priceForEntry(
  price: Pick<LabelPrice, 'price' | 'discountedPrice'> | null,
  entry: { expectedPrice: number | string | null; sizeValue: number | string | null } | null,
): { price: number | null; discountedPrice: number | null } {
  const [shown, offer] = [price?.price ?? null, price?.discountedPrice ?? null];
  const expected = entry?.expectedPrice ?? null;
  if (shown !== null && lostPoint(shown, expected))
    return {
      price: shown / 100,
      discountedPrice: offer !== null && Number.isInteger(offer) && offer >= 100 && offer < shown ? offer / 100 : offer,
    };
  if (samePrice(shown, entry?.sizeValue ?? null) && !samePrice(shown, expected))
    return { price: null, discountedPrice: offer };
  return { price: shown, discountedPrice: offer };
}

/**
 * A currency sign beside a digit, as a label prints its price (`£2`, `$0`, `¥1`, `9 €`, `8円`), whether
 * or not the price parses: OCR that misreads a tilted price (`£2:32`, `£225`) still reads its sign, and
 * a pack's window or bare shelf shows none.
 */
export function showsCurrencySign(text: string): boolean {
  return /[£$€¥]\s?\d|\d\s?[€円]/.test(text.normalize('NFKC'));
}
