/** What ends a text cut to fit its column. One character, so the cut keeps the most of the text. */
export const ELLIPSIS = '…';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

const LONE_SURROGATE_SOURCE = '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';
/** A UTF-16 surrogate without its pair: jsonb refuses it (a text column would hold U+FFFD instead). */
export const LONE_SURROGATE = new RegExp(LONE_SURROGATE_SOURCE);
const LONE_SURROGATES = new RegExp(LONE_SURROGATE_SOURCE, 'g');

/** Text PostgreSQL refuses: U+0000 (in text and jsonb) or a lone surrogate (in jsonb). */
export const unstorable = (value: string): boolean => value.includes('\u0000') || LONE_SURROGATE.test(value);

/**
 * Text from outside that we keep rather than judge (a receiver's answer, a model's) made storable:
 * U+0000 left out, a lone surrogate replaced by U+FFFD. Sent as it came, such text made its insert
 * fail on every retry, and a step that records what already happened cannot fail for good.
 */
export function storableText(value: string): string {
  return value.replaceAll('\u0000', '').replace(LONE_SURROGATES, '\ufffd');
}

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
