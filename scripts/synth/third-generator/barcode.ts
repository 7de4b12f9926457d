// EAN-13 and UPC-A: check digits, bar patterns, and the bars drawn as one SVG path.

const L = [
  '0001101',
  '0011001',
  '0010011',
  '0111101',
  '0100011',
  '0110001',
  '0101111',
  '0111011',
  '0110111',
  '0001011',
];
const G = [
  '0100111',
  '0110011',
  '0011011',
  '0100001',
  '0011101',
  '0111001',
  '0000101',
  '0010001',
  '0001001',
  '0010111',
];
const R = [
  '1110010',
  '1100110',
  '1101100',
  '1000010',
  '1011100',
  '1001110',
  '1010000',
  '1000100',
  '1001000',
  '1110100',
];
const PARITY = ['LLLLLL', 'LLGLGG', 'LLGGLG', 'LLGGGL', 'LGLLGG', 'LGGLLG', 'LGGGLL', 'LGLGLG', 'LGLGGL', 'LGGLGL'];

/** GS1 check digit for the digits before it (weights 3,1,3,... from the right). */
export function checkDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const d = body.charCodeAt(body.length - 1 - i) - 48;
    sum += i % 2 === 0 ? d * 3 : d;
  }
  return (10 - (sum % 10)) % 10;
}

/** True for a 12-digit UPC-A or 13-digit EAN-13 whose last digit is its check digit. */
export function isValidGtin(code: string): boolean {
  if (!/^\d{12,13}$/.test(code)) return false;
  return checkDigit(code.slice(0, -1)) === Number(code[code.length - 1]);
}

export function withCheckDigit(body: string): string {
  return body + String(checkDigit(body));
}

/** 95 modules ('1' bar, '0' space) of an EAN-13 (or of a UPC-A, as EAN-13 with a leading 0). */
export function modules(code: string): string {
  const ean = code.length === 12 ? `0${code}` : code;
  if (!isValidGtin(ean)) throw new Error(`not a valid EAN-13/UPC-A: ${code}`);
  const first = Number(ean[0]);
  let out = '101';
  for (let i = 0; i < 6; i++) {
    const d = Number(ean[1 + i]);
    out += PARITY[first][i] === 'L' ? L[d] : G[d];
  }
  out += '01010';
  for (let i = 0; i < 6; i++) out += R[Number(ean[7 + i])];
  return out + '101';
}

/** Module indexes of the guard bars, drawn longer. */
function isGuard(i: number, upc: boolean): boolean {
  if (i < 3 || i >= 92 || (i >= 45 && i < 50)) return true;
  // UPC-A also lengthens the bars of its first and last digits.
  return upc && ((i >= 3 && i < 10) || (i >= 85 && i < 92));
}

export interface BarcodeDraw {
  /** Left edge of the first bar. */
  x: number;
  y: number;
  moduleWidth: number;
  barHeight: number;
  fill: string;
}

/** The bars as one path; guard bars reach `guardExtra` px lower than the others. */
export function barsPath(code: string, d: BarcodeDraw, guardExtra: number): string {
  const upc = code.length === 12;
  const m = modules(code);
  let path = '';
  let i = 0;
  while (i < m.length) {
    if (m[i] !== '1') {
      i++;
      continue;
    }
    let j = i;
    while (j < m.length && m[j] === '1' && isGuard(j, upc) === isGuard(i, upc)) j++;
    const h = d.barHeight + (isGuard(i, upc) ? guardExtra : 0);
    path += `M${(d.x + i * d.moduleWidth).toFixed(2)} ${d.y.toFixed(2)}h${((j - i) * d.moduleWidth).toFixed(2)}v${h.toFixed(2)}h${(-(j - i) * d.moduleWidth).toFixed(2)}z`;
    i = j;
  }
  return `<path d="${path}" fill="${d.fill}"/>`;
}

/** The human-readable digits as printed under the bars, in groups. */
export function printedGroups(code: string): string[] {
  if (code.length === 12) return [code[0], code.slice(1, 6), code.slice(6, 11), code[11]];
  return [code[0], code.slice(1, 7), code.slice(7)];
}
