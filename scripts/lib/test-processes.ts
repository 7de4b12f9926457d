import { readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';

/**
 * What in a test file's source gives it a process of its own: it changes process-wide state
 * (environment, tracing, the Temporal runtime), looks at its own process (its pid: memory, CPU time,
 * its child processes), drives a browser, or says so (a comment `npm test: own process`). Starting
 * child processes (the CLI, a worker, the API) is no reason: such files share processes like the
 * others. Each process costs some 3 s of CPU to load the service's modules under tsx, and 14 files had
 * a process each for that reason alone (D268).
 */
const OWN_PROCESS =
  /process\.pid|process\.env\.[A-Z_]+\s*=[^=]|initTracing|Runtime\.install|chromium|npm test: own process/;

/**
 * What runs after every other test process has finished, by itself: a file that measures CPU time and
 * says so (a comment `npm test: alone`). Three test processes at once on a 2-core machine raised the
 * main-thread CPU main-thread-share.test.ts measures from 40 to 330 ms for the same photos.
 */
const ALONE = /npm test: alone/;

export type TestProcess = { label: string; files: string[]; alone: boolean };

/** `03-console.test.mjs` (an entry module scripts/test.ts writes) → `console`. */
export const processLabel = (entry: string) =>
  basename(entry)
    .replace(/^\d+-/, '')
    .replace(/\.test\.mjs$/, '');

/**
 * Test files to test processes, in the order to start them. Loading the service's modules costs a
 * test process some 2 s of CPU (a Temporal worker in it more), so the files without a reason for a
 * process of their own share processes, about `groupSize` to one: node:test runs a process's files
 * one after another, each with its own hooks as ever. The files with one come first; with `times`
 * (each file's time in an earlier run, by its path from `root`) the processes start longest first
 * instead, so that the last to finish is a short one: a file without a time counts as long.
 */
export function planProcesses(
  files: string[],
  groupSize: number,
  times: Record<string, number> = {},
  root = '',
): TestProcess[] {
  const source = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
  const last = new Set(files.filter((f) => ALONE.test(source.get(f)!)));
  const alone = files.filter((f) => groupSize <= 1 || OWN_PROCESS.test(source.get(f)!) || last.has(f));
  const shared = files.filter((f) => !alone.includes(f));
  // As many groups as `groupSize` needs.
  const count = Math.ceil(shared.length / groupSize);
  const groups: string[][] = Array.from({ length: count }, () => []);
  const known = Object.keys(times).length > 0;
  const longest = known ? Math.max(...Object.values(times)) : 0;
  const timeOf = (f: string) => times[relative(root, f)] ?? longest;
  if (known) {
    // With the last run's times: longest file first, each to the group with the least time so far, so
    // that the groups take about as long as each other. Here a file without a time counts as a
    // typical one (the mean): as the longest, a few new files would each take a group for themselves.
    const mean = Object.values(times).reduce((a, b) => a + b, 0) / Object.keys(times).length;
    const typical = (f: string) => times[relative(root, f)] ?? mean;
    const totals = groups.map(() => 0);
    for (const f of [...shared].sort((a, b) => typical(b) - typical(a))) {
      const i = totals.indexOf(Math.min(...totals));
      groups[i]!.push(f);
      totals[i]! += typical(f);
    }
  } else {
    // Without: the files that run Temporal workers in process (the longer ones) are dealt out first,
    // so that no group gets most of them.
    const withWorkers = (f: string) => /\bstartTestWorkers\(/.test(source.get(f)!);
    [...shared.filter(withWorkers), ...shared.filter((f) => !withWorkers(f))].forEach((f, i) =>
      groups[i % count]!.push(f),
    );
  }
  const planned = [
    ...alone.map((f) => ({ label: basename(f, '.test.ts'), files: [f], alone: last.has(f) })),
    ...groups.map((g, i) => ({ label: `group-${i + 1}`, files: g, alone: false })),
  ];
  if (!known) return planned;
  const estimate = (p: TestProcess) => p.files.reduce((sum, f) => sum + timeOf(f), 0);
  return planned.sort((a, b) => estimate(b) - estimate(a));
}
