// Imported first by every test process's entry module (scripts/test.ts): when the process exits, it
// appends the CPU time it used, that of the child processes it waited for (workers, OCR helpers), and
// how many tests it ran, to a file the runner reads for its summary and to check that no test's verdict
// was lost on the way to it (nodejs/node#64833). Plain JavaScript, like the entry modules.
import { appendFileSync, readFileSync } from 'node:fs';
import process from 'node:process';
import { afterEach } from 'node:test';

// A root hook, in place before the entry module's test files are evaluated (this module is its first
// import; its own statements run after all of them): it runs after every test of the process's files,
// subtests too, not after suites: the tests that ran here, whatever reached the runner.
let tests = 0;
afterEach(() => {
  tests++;
});

/** @param {string} path @param {string} label */
export function recordUsage(path, label) {
  process.once('exit', () => {
    const { user, system } = process.cpuUsage();
    // /proc/self/stat fields 16 and 17: children's user and system time in clock ticks (100 a second).
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const childrenMs = (Number(fields[13] ?? 0) + Number(fields[14] ?? 0)) * 10;
    appendFileSync(
      path,
      `${JSON.stringify({ label, cpuMs: Math.round((user + system) / 1000), childrenMs, tests })}\n`,
    );
  });
}
