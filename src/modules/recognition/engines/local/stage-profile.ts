import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { procStat } from '../../../../lib/proc-stat.js';

/**
 * An opt-in profile of where a photo's CPU time goes, stage by stage: `RECOGNITION_PROFILE=<file>`
 * appends one JSON line a photo to that file (`{"stages":{"decode":0.01,…},"total":…}`, CPU seconds
 * of the process and its helper processes, tesseract's native helper included). Off (unset), every
 * call here returns at once. A recognition thread reads one photo at a time, so one profile at a time
 * is kept per thread; with more than one thread, process-wide CPU mixes the photos: profile with one.
 */
const target = () => process.env.RECOGNITION_PROFILE ?? '';

/** CPU seconds of this process (all its threads) and its live children (the OCR helpers). */
function cpuNow(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    for (const tid of readdirSync('/proc/self/task'))
      for (const pid of readFileSync(`/proc/self/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean))
        children += (procStat(pid)?.cpuMs ?? 0) / 1000;
  } catch {
    // not Linux: the process's own time only
  }
  return (own.user + own.system) / 1e6 + children;
}

let stages: Map<string, number> | undefined;
const counts = new Map<string, number>();
let last = 0;
let started = 0;

/** Whether this photo is being profiled: callers that run stages side by side run them in turn instead. */
export const profiling = (): boolean => stages !== undefined;

/** A photo's profile starts. */
export function profileStart(): void {
  if (target() === '') return;
  stages = new Map();
  counts.clear();
  last = started = cpuNow();
}

/** The CPU time since the last mark is `stage`'s (added to what it already had this photo). */
export function mark(stage: string): void {
  if (!stages) return;
  const now = cpuNow();
  stages.set(stage, (stages.get(stage) ?? 0) + now - last);
  last = now;
}

/** Counts `n` more of `what` this photo (crops read, pixels OCR'd): what a stage's time was spent on. */
export function count(what: string, n = 1): void {
  if (!stages) return;
  counts.set(what, (counts.get(what) ?? 0) + n);
}

/** The photo's profile ends: written out as one line. */
export function profileEnd(extra: Record<string, unknown> = {}): void {
  if (!stages) return;
  mark('rest');
  const round = (v: number) => Math.round(v * 1000) / 1000;
  appendFileSync(
    target(),
    JSON.stringify({
      ...extra,
      total: round(last - started),
      stages: Object.fromEntries([...stages].map(([k, v]) => [k, round(v)])),
      counts: Object.fromEntries(counts),
    }) + '\n',
  );
  stages = undefined;
}
