import type { RecognizedProduct } from './recognizer.js';
import { normalizeGtin, tokens } from './catalogue-matcher.js';

function identity(p: RecognizedProduct): string {
  const what =
    normalizeGtin(p.upc) ??
    p.sku?.toLowerCase() ??
    [...tokens(`${p.brand ?? ''} ${p.description ?? ''}`)].sort().join(' ');
  return `${what}|${p.shelfPosition ?? ''}|${p.shelfSection ?? ''}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

/**
 * Merges the products of several independent passes. The same product at the same place on the
 * shelf is one row: the most confident sighting gives the fields, the median gives the facings,
 * and confidence drops for products only some passes saw.
 */
export function mergeRuns(runs: RecognizedProduct[][]): RecognizedProduct[] {
  if (runs.length === 1) return runs[0]!;
  const groups = new Map<string, { sightings: RecognizedProduct[]; runs: Set<number> }>();
  runs.forEach((products, runIndex) => {
    for (const product of products) {
      const key = identity(product);
      const group = groups.get(key) ?? { sightings: [], runs: new Set<number>() };
      group.sightings.push(product);
      group.runs.add(runIndex);
      groups.set(key, group);
    }
  });
  return [...groups.values()].map(({ sightings, runs: seenIn }) => {
    const best = sightings.reduce((a, b) => (b.confidenceScore > a.confidenceScore ? b : a));
    const agreement = seenIn.size / runs.length;
    return {
      ...best,
      units: Math.max(1, median(sightings.map((s) => s.units))),
      confidenceScore: Math.round(best.confidenceScore * (0.5 + 0.5 * agreement) * 1000) / 1000,
    };
  });
}
