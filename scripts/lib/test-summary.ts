import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { processLabel } from './test-processes.js';

/** What a run learnt of its test files' times (ms, by path from the repository's root), kept for the next run. */
export type FileTimes = Record<string, number>;

type Line = { start?: string; end?: string; test?: string; verdict?: string; ms?: number; at?: number };
type Usage = { label: string; cpuMs: number; childrenMs: number; tests?: number };
type Run = { durations: string; usage: string; offsetMs: number };

const lines = <T>(path: string): T[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as T];
          } catch {
            return []; // a line cut off by --test-force-exit
          }
        })
    : [];

export function readFileTimes(path: string): FileTimes {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as FileTimes;
  } catch {
    return {};
  }
}

const s = (ms: number) => (ms / 1000).toFixed(1).padStart(6);

/**
 * Where a run's time went, from the lines its reporter (test-durations.mjs) and its processes
 * (test-process-usage.mjs) wrote: each process's wall and CPU time and when it ran, the slowest files,
 * and the sums. Writes the files' times to `keep` (merged over what was there) for the next run.
 */
export function summarise(runs: Run[], root: string, keep: string, say: (msg: string) => void): void {
  const processes = new Map<string, { ms: number; from: number; to: number; cpuMs?: number; childrenMs?: number }>();
  const files: FileTimes = {};
  for (const run of runs) {
    const started = new Map<string, number>();
    for (const l of lines<Line>(run.durations)) {
      if (l.start) started.set(l.start, l.at ?? 0);
      else if (l.end)
        processes.set(processLabel(l.end), {
          ms: l.ms ?? 0,
          from: run.offsetMs + (started.get(l.end) ?? 0),
          to: run.offsetMs + (l.at ?? 0),
        });
      else if (l.test) files[relative(root, l.test)] = (files[relative(root, l.test)] ?? 0) + (l.ms ?? 0);
    }
    for (const u of lines<Usage>(run.usage)) {
      const p = processes.get(u.label);
      if (p) {
        p.cpuMs = u.cpuMs + u.childrenMs;
        p.childrenMs = u.childrenMs;
      }
    }
  }
  writeFileSync(keep, JSON.stringify({ ...readFileTimes(keep), ...files }, null, 2));
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const byTime = [...processes].sort((a, b) => b[1].ms - a[1].ms);
  say(
    `where the time went: ${processes.size} processes, wall ${s(sum(byTime.map(([, p]) => p.ms)))} s and ` +
      `CPU ${s(sum(byTime.map(([, p]) => p.cpuMs ?? 0)))} s in all (child processes ${s(sum(byTime.map(([, p]) => p.childrenMs ?? 0)))} s); ${Object.keys(files).length} files, ` +
      `${s(sum(Object.values(files)))} s in all`,
  );
  // CPU counts the child processes a test process started and waited for (API and worker processes,
  // the CLI, OCR helpers); "of it, children" is their share.
  say(`  process                          wall    CPU   of it, children   from     to`);
  for (const [label, p] of byTime)
    say(
      `  ${label.padEnd(30)} ${s(p.ms)} ${p.cpuMs === undefined ? '     ?' : s(p.cpuMs)}   ${p.childrenMs === undefined ? '     ?' : s(p.childrenMs)}          ${s(p.from)} ${s(p.to)}`,
    );
  say('  slowest files (their top-level tests and suites):');
  for (const [file, ms] of Object.entries(files)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20))
    say(`  ${s(ms)}  ${file}`);
}

/**
 * The processes whose tests' verdicts did not all reach the runner: each process counts the tests it
 * ran (test-process-usage.mjs), the reporter writes a line for every verdict node:test passed on
 * (test-durations.mjs). Fewer verdicts than tests run is what nodejs/node#64833 does under
 * --test-force-exit: a test's result is dropped and the run would still pass, counting one test less.
 * More is fine (the tests a failed `before` hook never ran are reported failed). `processes` says
 * which test files each process ran (scripts/lib/test-processes.ts).
 */
export function lostVerdicts(
  runs: Run[],
  processes: { label: string; files: string[] }[],
  root: string,
): { label: string; ran: number; reported: number }[] {
  const reportedByFile = new Map<string, number>();
  const ranByLabel = new Map<string, number>();
  for (const run of runs) {
    for (const l of lines<Line>(run.durations)) {
      if (!l.verdict) continue;
      const file = relative(root, l.verdict);
      reportedByFile.set(file, (reportedByFile.get(file) ?? 0) + 1);
    }
    for (const u of lines<Usage>(run.usage)) if (u.tests !== undefined) ranByLabel.set(u.label, u.tests);
  }
  return processes.flatMap(({ label, files }) => {
    const ran = ranByLabel.get(label);
    const reported = files.reduce((n, f) => n + (reportedByFile.get(relative(root, f)) ?? 0), 0);
    return ran !== undefined && reported < ran ? [{ label, ran, reported }] : [];
  });
}
