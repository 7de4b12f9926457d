import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { nodeEntry } from './node-entry.js';

const root = resolve(import.meta.dirname, '../..');

export type CliRun = { code: number; stdout: string; stderr: string };

/** The admin CLI as operators run it: a child process; its exit code, stdout and stderr. */
export function runCli(env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [...nodeEntry('src/cli/main.ts'), ...args],
      { cwd: root, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs a command that must succeed, with --json, and parses its output. */
export async function cliJson(env: Record<string, string>, ...args: string[]): Promise<any> {
  const run = await runCli(env, ...args, '--json');
  assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Bad input: exit code 2, a one-line reason first, no stack trace, nothing on stdout. */
export function assertRefused(run: CliRun, reason: RegExp): void {
  assert.equal(run.code, 2, run.stderr);
  const first = run.stderr.split('\n')[0]!;
  assert.match(first, /^error: /);
  assert.match(first, reason);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(run.stdout, '');
}
