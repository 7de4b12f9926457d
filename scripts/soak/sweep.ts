// `npm run soak -- --seeds 777,1,2,3,4 --recognizer local,standin`: one soak per (recognizer, seed),
// one after the other (each owns the same ports and data directory), each a process of its own
// (scripts/soak.ts with SOAK_SEED and SOAK_RECOGNIZER), then one table of them all.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const RECOGNIZERS = ['standin', 'local'] as const;
export type SoakRecognizer = (typeof RECOGNIZERS)[number];

/** What one soak run writes to SOAK_SUMMARY_FILE for the sweep's table. */
export type SoakSummary = {
  seed: number;
  recognizer: SoakRecognizer;
  analyses: number;
  kills: Record<string, number>;
  violations: number;
  resends: number;
  ackToRecordMs: { p50: number; p99: number; max: number };
  durationS: number;
};

type Run = { seed: number; recognizer: SoakRecognizer };

/**
 * `logs`: the directory each run writes its processes' logs to (the next run starts it afresh); a run
 * that fails has it copied to `keep`/soak-logs-<recognizer>-<seed>.
 */
export async function runSweep(
  runs: Run[],
  script: string,
  env: NodeJS.ProcessEnv,
  logs: { dir: string; keep: string },
  onChild: (pid: number | undefined) => void,
  /** Asked to stop (a signal): no further run is started. */
  stopped: () => boolean,
): Promise<number> {
  const rows: { run: Run; summary?: SoakSummary; exit: number | string }[] = [];
  for (const [i, run] of runs.entries()) {
    console.log(`\n=== soak ${i + 1} of ${runs.length}: seed ${run.seed}, recognizer ${run.recognizer} ===`);
    const file = join(tmpdir(), `soak-summary-${process.pid}-${i}.json`);
    rmSync(file, { force: true });
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      stdio: 'inherit',
      env: { ...env, SOAK_SEED: String(run.seed), SOAK_RECOGNIZER: run.recognizer, SOAK_SUMMARY_FILE: file },
    });
    onChild(child.pid);
    const exit = await new Promise<number | string>((r) =>
      child.once('exit', (code, signal) => r(signal ?? code ?? 1)),
    );
    onChild(undefined);
    const summary = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SoakSummary) : undefined;
    rmSync(file, { force: true });
    rows.push({ run, summary, exit });
    if ((exit !== 0 || summary?.violations !== 0) && existsSync(logs.dir)) {
      const kept = join(logs.keep, `soak-logs-${run.recognizer}-${run.seed}`);
      rmSync(kept, { recursive: true, force: true });
      cpSync(logs.dir, kept, { recursive: true });
      console.log(`its logs: ${kept}`);
    }
    if (typeof exit === 'string' || stopped()) break;
  }
  printSweep(rows);
  return rows.length === runs.length && rows.every((r) => r.exit === 0 && r.summary?.violations === 0) ? 0 : 1;
}

function printSweep(rows: { run: Run; summary?: SoakSummary; exit: number | string }[]): void {
  const head = [
    'seed',
    'recognizer',
    'analyses',
    'kills',
    'violations',
    'resends (same id)',
    '2xx→record p50/p99/max ms',
    'duration',
    'exit',
  ];
  const body = rows.map(({ run, summary: s, exit }) => [
    String(run.seed),
    run.recognizer,
    s ? String(s.analyses) : '-',
    s
      ? `${Object.values(s.kills).reduce((a, b) => a + b, 0)} (${Object.entries(s.kills)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')})`
      : '-',
    s ? String(s.violations) : 'no verdict',
    s ? String(s.resends) : '-',
    s ? `${s.ackToRecordMs.p50.toFixed(0)}/${s.ackToRecordMs.p99.toFixed(0)}/${s.ackToRecordMs.max.toFixed(0)}` : '-',
    s ? `${s.durationS} s` : '-',
    String(exit),
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((r) => r[c]!.length)));
  const line = (cells: string[]) => `| ${cells.map((x, c) => x.padEnd(widths[c]!)).join(' | ')} |`;
  console.log('\nSoak sweep');
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of body) console.log(line(r));
}
