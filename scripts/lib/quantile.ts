/**
 * The nearest-rank quantile `p` (0–1) of `values`, sorted on a copy; `empty` when there are none.
 * Every benchmark and the soak report their p50/p99 through this one rule, so their figures compare.
 */
export function quantile(values: readonly number[], p: number, empty = NaN): number {
  if (values.length === 0) return empty;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
