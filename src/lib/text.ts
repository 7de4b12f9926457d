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

/**
 * Control characters: C0 (U+0000–U+001F, tab and line breaks among them), DEL and C1
 * (U+0080–U+009F). In a name printed on a terminal a line break forges a row of the operator CLI's
 * output, and an escape sequence (ESC, or C1's CSI and OSC) moves the cursor or retitles the window.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
/** The same without tab, line feed and carriage return, which free text (notes, descriptions) may hold. */
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const CONTROL_CHARACTER_BUT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** Whether a name or label (one line of text) holds a control character, tab and line breaks included. */
export const hasControlCharacter = (value: string): boolean => CONTROL_CHARACTER.test(value);
/** Whether free text holds a control character other than tab, line feed and carriage return. */
export const hasControlCharacterBesidesLineBreaks = (value: string): boolean =>
  CONTROL_CHARACTER_BUT_LINE_BREAKS.test(value);

/**
 * What a terminal must not receive raw besides the control characters: U+2028 and U+2029 (line and
 * paragraph separators) and the bidirectional formatting characters, which reorder what is shown
 * around them and so can make one row read like another.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const FOR_TERMINAL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\\]/g;
const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

/**
 * Stored text made safe to print on an operator's terminal on one line: control characters (rows
 * stored before they were refused, text from outside) and the characters above written as escapes,
 * `\n`, `\r`, `\t`, `\xHH` and `\uHHHH`, and a backslash doubled so an escape cannot be forged.
 */
export function terminalSafe(value: string): string {
  return value.replace(FOR_TERMINAL, (c) => {
    const named = NAMED_ESCAPES[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** What JSON.stringify leaves raw but a terminal must not receive: DEL, C1 and the characters above. */
const JSON_FOR_TERMINAL = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON for a terminal: JSON.stringify escapes C0 controls but writes DEL, C1 controls (CSI, OSC) and
 * bidirectional formatting raw; here they are \uHHHH escapes too. The same JSON value, parsed.
 */
export function terminalSafeJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(
    JSON_FOR_TERMINAL,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
