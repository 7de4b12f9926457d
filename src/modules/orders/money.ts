/**
 * Exact money: amounts are integers in scaled units (cents, thousandths of a unit, hundredths of a
 * percent) and every product is a BigInt, so no float ever touches a price.
 */
export function toScaled(value: number | string, decimals: number): bigint {
  const [int, frac = ''] = String(value).split('.');
  const negative = int!.startsWith('-');
  const digits = `${int!.replace('-', '')}${frac.padEnd(decimals, '0').slice(0, decimals)}`;
  const n = BigInt(digits || '0');
  return negative ? -n : n;
}

/** a / b rounded half up (away from zero for the halves), for a ≥ 0, b > 0. */
export function divHalfUp(a: bigint, b: bigint): bigint {
  return (a * 2n + b) / (2n * b);
}

export function centsToString(cents: bigint): string {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  return `${negative ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

export type LineAmounts = { net: bigint; tax: bigint; total: bigint };

/**
 * decisions.md: taxAmount = quantity × unitPrice × taxPercent / 100, rounded half up to cents;
 * totalPrice = quantity × unitPrice + taxAmount. Quantity has 3 decimals, taxPercent 2.
 */
export function lineAmounts(
  quantity: number | string,
  unitPrice: number | string,
  taxPercent: number | string,
): LineAmounts {
  const q = toScaled(quantity, 3); // thousandths
  const p = toScaled(unitPrice, 2); // cents
  const t = toScaled(taxPercent, 2); // hundredths of a percent
  const net = divHalfUp(q * p, 1000n);
  const tax = divHalfUp(q * p * t, 1000n * 100n * 100n);
  return { net, tax, total: net + tax };
}
