// Load at a constant arrival rate (an open model): what "N requests a second offered" means.
// autocannon's `overallRate` is not that: each connection sends its share of the second back to back
// the moment the second starts (httpClient.js resets a per-second count on a 1 s interval), so
// "300 req/s" with 32 connections arrives as a burst of 300 every second and p99 measures the
// queue of that burst. vegeta (github.com/tsenart/vegeta) spaces requests evenly; it is built once
// from the Go module proxy into our cache, like the Temporal CLI.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goInstall, onPath } from '../temporal.js';

const VEGETA_MODULE = 'github.com/tsenart/vegeta/v12@v12.13.0';

type VegetaReport = {
  latencies: { '50th': number; '99th': number };
  requests: number;
  throughput: number;
  status_codes: Record<string, number>;
  errors: string[] | null;
};

export type PacedResult = { rps: number; p50: number; p99: number; ok: number; total: number };

/** The vegeta binary: on PATH, or built into the cache. Throws when neither works. */
function vegeta(): string {
  const path = onPath('vegeta') ?? goInstall(VEGETA_MODULE, 'vegeta');
  if (!path) throw new Error(`no vegeta on PATH and 'go install ${VEGETA_MODULE}' failed`);
  return path;
}

/** GETs `url` at `rate` a second for `seconds`, at most `connections` open; latencies in ms. */
export function pacedLoad(opts: {
  url: string;
  rate: number;
  seconds: number;
  connections: number;
  headers?: Record<string, string>;
}): PacedResult {
  const bin = vegeta();
  const dir = mkdtempSync(join(tmpdir(), 'paced-'));
  try {
    const targets = join(dir, 'targets');
    const results = join(dir, 'results.bin');
    writeFileSync(targets, `GET ${opts.url}\n`);
    const headers = Object.entries(opts.headers ?? {}).flatMap(([k, v]) => ['-header', `${k}: ${v}`]);
    const attack = spawnSync(
      bin,
      [
        'attack',
        `-targets=${targets}`,
        `-rate=${opts.rate}/1s`,
        `-duration=${opts.seconds}s`,
        `-max-connections=${opts.connections}`,
        `-output=${results}`,
        ...headers,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (attack.status !== 0) throw new Error(`vegeta attack exited ${attack.status}`);
    const report = spawnSync(bin, ['report', '-type=json', results], { encoding: 'utf8' });
    if (report.status !== 0) throw new Error(`vegeta report exited ${report.status}: ${report.stderr}`);
    const r = JSON.parse(report.stdout) as VegetaReport;
    const ok = Object.entries(r.status_codes)
      .filter(([code]) => code.startsWith('2'))
      .reduce((n, [, count]) => n + count, 0);
    if (ok < r.requests) console.error(`[bench] paced load: ${r.requests - ok} of ${r.requests} not 2xx`, r.errors);
    return {
      rps: r.throughput,
      p50: r.latencies['50th'] / 1e6,
      p99: r.latencies['99th'] / 1e6,
      ok,
      total: r.requests,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
