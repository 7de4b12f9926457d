import { tokens, type IndexedEntry } from '../../catalogue-matcher.js';
import { cx, cy, h, w } from './boxes.js';
import { editDistance } from './catalogue-naming.js';
import type { Box } from './ocr-pool.js';

/**
 * A pack stands on the shelf in several facings side by side, and the print on each is the same.
 * Print a few pixels tall is misread differently on each facing ("Litte Acom Caesa Peeder", "Litete
 * Acom ibu.Penvder"), so no one reading names the product, while together, each word put in the
 * catalogue's spelling, they do (D394). These are the parts: the catalogue's words, a reading in
 * their spelling, and the runs of facings.
 */

const wordsOf = new WeakMap<IndexedEntry[], string[]>();

/** Every word of the catalogue's brands and names, three letters or more and not a number (worked out once a catalogue). */
export function catalogueWords(entries: IndexedEntry[]): string[] {
  let words = wordsOf.get(entries);
  if (!words) {
    const all = new Set<string>();
    for (const e of entries) for (const t of e.tokens) if (t.length >= 3 && /[a-z]/.test(t)) all.add(t);
    words = [...all];
    wordsOf.set(entries, words);
  }
  return words;
}

/**
 * The text's words in the catalogue's spelling: each word of three letters or more becomes the one
 * catalogue word nearest it, where that is at most two fifths of the longer word's letters away (one
 * letter in a word of three or four) and no other catalogue word is as near; other words are kept.
 */
export function inCatalogueSpelling(text: string, words: readonly string[]): string {
  const out: string[] = [];
  for (const word of tokens(text)) {
    if (word.length < 3 || !/[a-z]/.test(word)) {
      out.push(word);
      continue;
    }
    let best: string | null = null;
    let least = Infinity;
    let tied = false;
    for (const t of words) {
      const cap = Math.max(1, Math.floor(0.4 * Math.max(t.length, word.length)));
      const d = editDistance(word, t, cap);
      if (d > cap) continue;
      if (d < least) [best, least, tied] = [t, d, false];
      else if (d === least && t !== best) tied = true;
    }
    out.push(best && !tied ? best : word);
  }
  return out.join(' ');
}

/**
 * Groups of items standing as facings of one pack: on one row (middles within half the taller one's
 * height), of about one size (heights and widths within twice each other: the detector may box a
 * facing's print with a line more or less), each within one and a half of the wider one's widths of
 * the next, and `same` said of each neighbouring pair. Only groups of two or more are returned.
 */
export function facingRuns<T>(items: T[], boxOf: (item: T) => Box, same: (a: T, b: T) => boolean): T[][] {
  const parent = items.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  const alike = (a: Box, b: Box) =>
    Math.abs(cy(a) - cy(b)) <= Math.max(h(a), h(b)) / 2 &&
    Math.max(h(a), h(b)) <= 2 * Math.min(h(a), h(b)) &&
    Math.max(w(a), w(b)) <= 2 * Math.min(w(a), w(b)) &&
    Math.abs(cx(a) - cx(b)) - (w(a) + w(b)) / 2 <= 1.5 * Math.max(w(a), w(b));
  for (let i = 0; i < items.length; i++)
    for (let j = i + 1; j < items.length; j++)
      if (alike(boxOf(items[i]!), boxOf(items[j]!)) && same(items[i]!, items[j]!)) parent[root(i)] = root(j);
  const groups = new Map<number, T[]>();
  items.forEach((item, i) => groups.set(root(i), [...(groups.get(root(i)) ?? []), item]));
  return [...groups.values()].filter((g) => g.length >= 2);
}
