import { readFileSync } from 'node:fs';

/** One recognised line: its text and the mean probability of the characters read. */
export type TextReading = { text: string; confidence: number };

/**
 * The recogniser's classes, in PaddleOCR's order: index 0 is the CTC blank, then one class per
 * line of the dictionary file, then a space (use_space_char: the file itself has no space line).
 * Lines are split on \n with a trailing \r dropped, never trimmed: a dictionary may hold
 * whitespace-like characters, and trimming one away would shift every later class by one.
 */
export function loadCharacters(dictionaryPath: string): string[] {
  const lines = readFileSync(dictionaryPath, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return ['', ...lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)), ' '];
}

/**
 * Greedy CTC decoding of a [batch, steps, classes] softmax: the most probable class at each step,
 * repeats merged, blanks dropped. The confidence is the mean of the kept steps' probabilities
 * (PaddleOCR's), 0 for an empty reading.
 */
export function ctcGreedy(
  probs: Float32Array,
  batch: number,
  steps: number,
  classes: number,
  characters: string[],
): TextReading[] {
  const out: TextReading[] = [];
  for (let b = 0; b < batch; b++) {
    let text = '';
    let sum = 0;
    let kept = 0;
    let previous = -1;
    for (let t = 0; t < steps; t++) {
      const base = (b * steps + t) * classes;
      let best = 0;
      let bestP = probs[base]!;
      for (let c = 1; c < classes; c++) {
        const p = probs[base + c]!;
        if (p > bestP) {
          bestP = p;
          best = c;
        }
      }
      // A class repeated over consecutive steps is one character; a blank between two repeats
      // separates them (the "ll" of "Hello" is l, blank, l).
      if (best !== 0 && best !== previous) {
        text += characters[best] ?? '';
        sum += bestP;
        kept++;
      }
      previous = best;
    }
    out.push({ text, confidence: kept ? sum / kept : 0 });
  }
  return out;
}

/**
 * Glyphs the recogniser gives for a printed 円: its dictionary (ppocr_keys_v1, Chinese) has no 円, so
 * a yen label's `238円` came out `238四`, `588日`, `268田` (the strokes in paddle-ocr.test.ts, `238電`),
 * and no price was read. After a number they are the yen sign; not after a month's (`12月31日` is a
 * date). Not every CJK glyph: `500克` (grams) or `12元` (yuan) are no yen (D356).
 */
const YEN_LOOKALIKE = /(?<![月年]\d{0,2})(?<=\d ?)[田日四丹冂门冈用内囗電电]/g;
/** 月 too (`268月`), but not after a month's number (`12月`). */
const YEN_AS_MONTH = /(?<![\d.,])(?!(?:0?[1-9]|1[0-2]) ?月)(\d{1,6}) ?月/g;

export function withYenSign(text: string): string {
  return text.replace(YEN_LOOKALIKE, '円').replace(YEN_AS_MONTH, '$1円');
}
