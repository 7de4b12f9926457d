/**
 * What a price line on a shelf tag may say around its number, removed before the number is read:
 * currency signs and the tax words of Japanese tags (税込 with tax, 税抜/税別 before tax, 本体価格
 * the price before tax). The recogniser's dictionary is Chinese: it has ¥, ￥ and $ but no £, € or
 * 円, which it reads as look-alikes or not at all.
 */
const MARKERS = /税込|税抜|税別|本体価格|本体|価格|円|¥|\$|£|€/gu;

export type PriceLineOptions = {
  /** Fewest digits of a price without decimals: 2 by default, since a lone digit is far more often a stray mark than a price. */
  minDigits?: number;
  /**
   * Most digits of a price without a thousands separator: 4 by default. Tags print 12,800 with
   * its comma; five or more bare digits are a product code or a barcode's number.
   */
  maxDigits?: number;
};

/**
 * The price a recognised line states, or null when the line is anything else: 198, 1,280,
 * ¥198, 198円, 税込213, 2.49, £2.49, 1,99 €. Japanese tags print whole yen, so an integer is a
 * price; a decimal part must have two digits. Full-width digits and signs are folded to ASCII.
 */
export function parsePriceLine(text: string, options: PriceLineOptions = {}): number | null {
  const minDigits = options.minDigits ?? 2;
  const maxDigits = options.maxDigits ?? 4;
  const core = text
    .normalize('NFKC')
    .replace(/\s+/g, '')
    .replace(MARKERS, '')
    // No £ in the dictionary: the recogniser reads "£4.05" as "E4.05" or "f4.05".
    .replace(/^[Ef](?=\d)/u, '')
    // A trailing dash or dot ("198.-", "198-") is a price's tail, not a part of it.
    .replace(/[-.:·]+$/u, '')
    .replace(/^[-.:·]+/u, '');
  let m = /^(\d{1,3}(?:,\d{3})+)$/.exec(core);
  if (m) return Number(m[1]!.replace(/,/g, ''));
  m = /^(\d{1,4})[.,](\d{2})$/.exec(core);
  if (m) {
    const value = Number(`${m[1]}.${m[2]}`);
    return value > 0 ? value : null;
  }
  m = /^(\d+)$/.exec(core);
  if (m && m[1]!.length >= minDigits && m[1]!.length <= maxDigits && !m[1]!.startsWith('0')) return Number(m[1]);
  return null;
}
