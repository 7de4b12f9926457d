import { tokens, type IndexedEntry } from '../../catalogue-matcher.js';

/**
 * How a label's or a pack's text names a catalogue entry: the share of the entry's words it shows,
 * with OCR's usual slips allowed, and the narrower namings a pack's print gives (a name only one entry
 * has, a brand beside a word only one of its entries has). The recognizer weighs them (bestEntry).
 */
type Entry = IndexedEntry;

/**
 * At most one letter changed, added or dropped: OCR's usual slip on a word it otherwise read. In a
 * word of eight letters or more, two (`ranulate` for "granulated", `edmatoes` for "tomatoes"): the
 * learned recognizer's slips on print a few pixels tall, and few such long words are two letters apart.
 */
export function nearlyEqual(a: string, b: string): boolean {
  if (Math.min(a.length, b.length) >= 8 && Math.abs(a.length - b.length) <= 2) return withinTwo(a, b);
  if (Math.abs(a.length - b.length) > 1 || Math.min(a.length, b.length) < 5) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.slice(i + 1) === b.slice(i + 1) || a.slice(i + 1) === b.slice(i) || a.slice(i) === b.slice(i + 1);
}

/** Levenshtein distance of two words is two or less. */
const withinTwo = (a: string, b: string) => editDistance(a, b, 2) <= 2;

/**
 * Levenshtein distance of two words where it is `cap` or less, else `cap + 1` (a banded table: only
 * cells within `cap` of the diagonal, given up once a row holds nothing under it).
 */
export function editDistance(a: string, b: string, cap: number): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const n = b.length;
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(n + 1).fill(cap + 1);
    row[0] = i;
    let best = i;
    for (let j = Math.max(1, i - cap); j <= Math.min(n, i + cap); j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, row[j]!);
    }
    if (best > cap) return cap + 1;
    prev = row;
  }
  return Math.min(prev[n]!, cap + 1);
}

/** The word is among the text's, or one is it misread by a letter (nearlyEqual). */
const readsWord = (text: Set<string>, word: string) => text.has(word) || [...text].some((u) => nearlyEqual(word, u));

/**
 * The text's letters and digits run together: the learned recognizer often reads a label's words
 * without the spaces between them ("PinecrestDriedApricots"), or splits a word ("Sw eetcorn").
 */
export const squash = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]/g, '');

/**
 * Share of the entry's tokens found in the text: labels abbreviate, rarely add. With `squashed`
 * (the text run together), a word of five letters or more found inside it counts a little less, as
 * a misread word does; shorter ones would be found inside other words ("rice" in "price").
 */
export function containment(text: Set<string>, entry: Set<string>, squashed = ''): number {
  if (entry.size === 0) return 0;
  let hit = 0;
  for (const t of entry) {
    if (text.has(t)) hit++;
    else if (t.length >= 5 && squashed.includes(t)) hit += 0.8;
    // A word cut short (a label half hidden, a word running off the crop) still counts, a little less.
    else
      for (const u of text)
        if (nearlyEqual(t, u) || (u.length >= 4 && t.startsWith(u))) {
          hit += 0.8;
          break;
        }
  }
  return hit / entry.size;
}

/** Sizes and units say little about which product a label is: "200g" is on half the shelf. */
const SIZE_WORD = /^(?:\d+|g|kg|ml|cl|l|ltr|oz|lb|pk|each|per)$/;

/** One of the entry's name words (not its brand's, not a size), four letters or more, read on the label. */
export function namesAWord(text: Set<string>, e: IndexedEntry): boolean {
  for (const t of e.tokens)
    if (t.length >= 4 && !SIZE_WORD.test(t) && !e.brand.has(t) && readsWord(text, t)) return true;
  return false;
}

/** What says nothing of which product a pack is in its name: its size and the size's units. */
const NAME_UNIT = /^(?:\d+|g|kg|ml|cl|l|ltr|fl|oz|lb|pk|ct|pcs|bags|rolls|sheets|count|each|per)$/;

/** Each entry's own name words (neither its brand's nor sizes), worked out once an entry. */
const nameWordsOf = new WeakMap<Entry, Set<string>>();

export function nameWords(e: Entry): Set<string> {
  let words = nameWordsOf.get(e);
  if (!words) {
    words = new Set([...tokens(e.entry.name)].filter((t) => !NAME_UNIT.test(t) && !e.brand.has(t)));
    nameWordsOf.set(e, words);
  }
  return words;
}

/** The text shows the entry's whole name (a word misread by a letter or so allowed), six letters or more. */
export const showsName = (text: Set<string>, squashed: string, e: Entry) => {
  const own = nameWords(e);
  return own.size > 0 && [...own].join('').length >= 6 && containment(text, own, squashed) >= 0.9;
};

/**
 * The one entry whose whole name the text shows, when no other entry's name is shown as fully
 * (D379): a pack prints its name large and its brand small or in a logo, so print reading
 * "BROWN SAUCE" names the catalogue's one Brown Sauce, whatever its brand. Names of fewer than six
 * letters are found inside too much other print ("Rice"); a name several entries share (three
 * brands of Sweet Chilli Sauce) names none of them, unless a word of just one of their brands is
 * read beside it (D386), and the longest name shown wins over the shorter one inside it ("Chilli
 * Sauce" inside "Sweet Chilli Sauce").
 */
export function distinctName(text: Set<string>, squashed: string, entries: Entry[]): Entry | null {
  let shown: Entry[] = [];
  let most = 0;
  for (const e of entries) {
    if (!showsName(text, squashed, e)) continue;
    const size = nameWords(e).size;
    if (size > most) {
      shown = [e];
      most = size;
    } else if (size === most) shown.push(e);
  }
  if (shown.length === 1) return shown[0]!;
  // A name several entries share, one of whose brands shows a word (four letters or more) beside it:
  // "GINGER BEER" over a label reading "EVERYDAY BARS" is Everyday Basics' (D386).
  const branded = shown.filter((e) => showsBrandWord(text, e));
  return branded.length === 1 ? branded[0]! : null;
}

/** A word of the entry's brand (four letters or more) is read in the text, whole or misread by a letter. */
export const showsBrandWord = (text: Set<string>, e: Entry) =>
  [...e.brand].some((t) => t.length >= 4 && readsWord(text, t));

/** The text shows every word of the entry's brand (one misread by a letter allowed), or the brand run together. */
export function showsBrand(text: Set<string>, squashed: string, e: Entry): boolean {
  if (e.brand.size === 0) return false;
  return [...e.brand].every((t) => readsWord(text, t)) || brandRunTogether(squashed, e);
}

/** The entry's whole brand, eight letters or more, run together in the text (`TAMSTEADFARM`). */
const brandRunTogether = (squashed: string, e: Entry) => {
  const together = [...e.brand].join('');
  return together.length >= 8 && squashed.includes(together);
};

/**
 * The one entry whose whole brand the text shows beside a word of its name (five letters or more,
 * one misread letter allowed) that no other entry of that brand has in its name: null where several
 * entries are so shown, or none.
 */
export function brandAndOwnWord(text: Set<string>, squashed: string, entries: Entry[]): Entry | null {
  let found: Entry | null = null;
  const shown = (t: string) => readsWord(text, t) || squashed.includes(t);
  for (const e of entries) {
    if (!showsBrand(text, squashed, e)) continue;
    const sameBrand = entries.filter((o) => o !== e && o.entry.brand === e.entry.brand);
    const own = [...nameWords(e)].some(
      (t) =>
        t.length >= 5 &&
        shown(t) &&
        !sameBrand.some((o) => [...nameWords(o)].some((v) => v === t || nearlyEqual(t, v))),
    );
    if (!own) continue;
    if (found) return null;
    found = e;
  }
  return found;
}

/**
 * The text shows another brand than the entry's: a word of it (four letters or more) read whole, or
 * the whole brand run together (showsBrand). "tle Acorn REAKFAST TEA" is Little Acorn's breakfast
 * tea, and "TAMSTEADFARM BREAKFAST TEA" Tamstead Farm's, not the catalogue's other "Breakfast Tea".
 */
export function showsOtherBrand(text: Set<string>, squashed: string, entry: Entry, entries: Entry[]): boolean {
  for (const e of entries) {
    if (e.entry.brand === entry.entry.brand) continue;
    for (const t of e.brand) if (t.length >= 4 && !entry.brand.has(t) && text.has(t)) return true;
    if (brandRunTogether(squashed, e)) return true;
  }
  return false;
}
