/** What ends a text cut to fit its column. One character, so the cut keeps the most of the text. */
export const ELLIPSIS = '…';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Length as PostgreSQL counts it for varchar(n) in a UTF-8 database: code points, not UTF-16 units. */
export function characterCount(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/**
 * Text derived from other values (alert titles built from names, model output) made to fit a
 * varchar(max) column: unchanged if it fits, otherwise cut to at most `max` characters ending in
 * an ellipsis. The cut falls between user-perceived characters (grapheme clusters), so it never
 * splits a surrogate pair, an accent from its letter or an emoji sequence.
 */
export function fitText(value: string, max: number): string {
  if (value.length <= max || characterCount(value) <= max) return value;
  const room = max - 1;
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(value)) {
    const n = characterCount(segment);
    if (used + n > room) break;
    out += segment;
    used += n;
  }
  return `${out.trimEnd()}${ELLIPSIS}`;
}
