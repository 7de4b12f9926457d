// `npx tsx scripts/eval/stage-profile.ts FILE [--skip 1] [--take N]`: the mean CPU seconds a photo of
// each recognition stage, and the mean counts, from a RECOGNITION_PROFILE file (stage-profile.ts).
// `--skip 1` leaves out the eval's untimed warm-up photo; `--skip`/`--take` pick one set's photos out
// of an eval of several (each set's photos follow in the order the sets were given).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

type Line = { total: number; stages: Record<string, number>; counts?: Record<string, number> };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { skip: { type: 'string', default: '0' }, take: { type: 'string' } },
});
const file = positionals[0];
if (!file) throw new Error('usage: stage-profile.ts FILE [--skip N] [--take N]');
const all = readFileSync(file, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Line);
const skip = Number(values.skip);
const lines = all.slice(skip, values.take ? skip + Number(values.take) : undefined);
const mean = (pick: (l: Line) => Record<string, number> | undefined) => {
  const sum = new Map<string, number>();
  for (const l of lines) for (const [k, v] of Object.entries(pick(l) ?? {})) sum.set(k, (sum.get(k) ?? 0) + v);
  return [...sum].map(([k, v]) => [k, v / Math.max(1, lines.length)] as const).sort((a, b) => b[1] - a[1]);
};
const total = lines.reduce((s, l) => s + l.total, 0) / Math.max(1, lines.length);
console.log(`${lines.length} photos, ${total.toFixed(3)} CPU s a photo`);
for (const [k, v] of mean((l) => l.stages))
  console.log(`  ${k.padEnd(14)} ${v.toFixed(3)} s  ${((100 * v) / total).toFixed(0)} %`);
console.log('counts a photo:');
for (const [k, v] of mean((l) => l.counts)) console.log(`  ${k.padEnd(14)} ${v.toFixed(1)}`);
