/** Escapes LIKE wildcards so user text matches literally. */
export function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `%term%` for a case-insensitive substring search. */
export function containsPattern(term: string): string {
  return `%${escapeLike(term)}%`;
}
