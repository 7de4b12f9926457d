import { readdirSync, readFileSync } from 'node:fs';

/** This process's direct children, from each of its threads' /proc children lists (helpers are spawned by worker threads). */
function childPids(): string[] {
  try {
    return readdirSync('/proc/self/task').flatMap((tid) =>
      readFileSync(`/proc/self/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean),
    );
  } catch {
    return [];
  }
}

/**
 * CPU time and peak memory of this process's live child processes (the native OCR engine's helpers,
 * one per recognition thread), read from /proc: process.cpuUsage() and resourceUsage() count only
 * this process's own threads. Linux only; elsewhere it reads nothing. Cheap enough to call per photo:
 * it reads the children's own files, not every process's.
 */
export function childProcesses(): { cpuSeconds: number; peakRssMb: number; count: number } {
  let ticks = 0;
  let kb = 0;
  let count = 0;
  for (const pid of childPids()) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command's closing parenthesis: state, ppid, ..., utime (14th), stime (15th).
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
      // VmHWM: the peak resident size over the process's life, so reading it once at the end will do.
      kb += Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      count++;
    } catch {
      // it ended meanwhile
    }
  }
  // USER_HZ is 100 on Linux.
  return { cpuSeconds: ticks / 100, peakRssMb: Math.round(kb / 1024), count };
}
