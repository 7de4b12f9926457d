import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { runCommandLine } from '../../src/cli/run.js';

export type CliRun = { code: number; stdout: string; stderr: string };

/**
 * The admin CLI run in this process (src/cli/run.ts, what src/cli/main.ts runs): its exit code, stdout
 * and stderr, for a test of what a command does. The same code as the program, on this process's
 * environment with `env` over it, without starting a program each time (about 1.2 s of CPU a start).
 * test/cli/admin-cli.test.ts and members.test.ts run the program itself, a child process: exit codes
 * and output as operators see them.
 */
export async function runCli(env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  const out = { stdout: '', stderr: '' };
  const sink = (to: 'stdout' | 'stderr') =>
    new Writable({
      decodeStrings: false,
      write(chunk: string | Buffer, _encoding, done) {
        out[to] += String(chunk);
        done();
      },
    });
  try {
    const code = await runCommandLine(
      args,
      { ...process.env, ...env },
      { stdout: sink('stdout'), stderr: sink('stderr') },
    );
    return { code, ...out };
  } catch (err) {
    // What Node does with the program's unhandled rejection: the error on stderr, exit code 1.
    return { code: 1, stdout: out.stdout, stderr: `${out.stderr}${inspect(err)}\n` };
  }
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
