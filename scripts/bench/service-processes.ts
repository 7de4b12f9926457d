import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { nodeFlagsFor } from '../../workers/node-flags.js';

const root = resolve(import.meta.dirname, '../..');

/**
 * A process of the service (`node --import tsx entry`), as `npm start` runs it: silent, its
 * metrics on a free port, fetching from loopback (the benchmarks' photo hosts), with `env` on top.
 */
export function serviceProcess(entry: string, env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, [...nodeFlagsFor(entry), '--import', 'tsx', entry], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'silent', METRICS_PORT: '0', ALLOW_PRIVATE_NETWORK_FETCH: 'true', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/**
 * Polls `what` until it gives anything but `false`, and returns that; past `timeoutMs` the benchmark
 * stops, saying what it waited for.
 */
export async function until<T>(
  label: string,
  what: () => T | false | Promise<T | false>,
  timeoutMs: number,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (value !== false) return value;
    if (performance.now() > deadline) throw new Error(`bench: timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits for an API on `apiPort` and its worker's health endpoint on the next port to answer. */
export async function servicesAnswer(apiPort: number): Promise<void> {
  const answers = (url: string) =>
    fetch(url).then(
      (r) => r.status < 500,
      () => false,
    );
  await until('the API', () => answers(`http://127.0.0.1:${apiPort}/health/live`), 60_000);
  await until('the worker', () => answers(`http://127.0.0.1:${apiPort + 1}/`), 120_000);
}

/** Resident set size of a process in MB (Linux /proc VmRSS), null once it has ended. */
export function rssMb(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}
