/** decisions.md: 100 × expected items found / expected items, one decimal; null without expectations. */
export function complianceScore(expected: string[], found: Set<string>): number | null {
  if (expected.length === 0) return null;
  const hits = expected.filter((e) => found.has(e)).length;
  return Math.round((1000 * hits) / expected.length) / 10;
}

export function complianceGrade(score: number | null): 'A' | 'B' | 'C' | 'D' | 'F' | null {
  if (score === null) return null;
  if (score >= 90) return 'A';
  if (score >= 80) return 'B';
  if (score >= 70) return 'C';
  if (score >= 60) return 'D';
  return 'F';
}
