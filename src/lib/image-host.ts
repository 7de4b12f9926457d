/**
 * What operators see of an image URL in the Temporal memo: its host only. The path and query of a
 * signed URL are credentials (tokens, signatures), and the memo is readable by everyone with UI access.
 * Pure string work, so workflow code can use it too.
 */
export function imageHostOf(url: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^/?#:]+)/i.exec(url);
  return match?.[1]?.toLowerCase() ?? 'unknown';
}
