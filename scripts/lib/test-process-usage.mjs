// Imported first by every test process's entry module (scripts/test.ts): when the process exits, it
// appends the CPU time it used, and that of the child processes it waited for (workers, OCR
// helpers), to a file the runner reads for its summary. Plain JavaScript, like the entry modules.
import { appendFileSync, readFileSync } from 'node:fs';
import process from 'node:process';

/** @param {string} path @param {string} label */
export function recordUsage(path, label) {
  process.once('exit', () => {
    const { user, system } = process.cpuUsage();
    // /proc/self/stat fields 16 and 17: children's user and system time in clock ticks (100 a second).
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const childrenMs = (Number(fields[13] ?? 0) + Number(fields[14] ?? 0)) * 10;
    appendFileSync(path, `${JSON.stringify({ label, cpuMs: Math.round((user + system) / 1000), childrenMs })}\n`);
  });
}
