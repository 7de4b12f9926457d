import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time and peak memory of this process's live child processes (the native OCR engine's helpers,
 * one per recognition thread), read from /proc: process.cpuUsage() and resourceUsage() count only
 * this process's own threads. Linux only; elsewhere it reads nothing.
 */
export function childProcesses(): { cpuSeconds: number; peakRssMb: number; count: number } {
  let ticks = 0;
  let kb = 0;
  let count = 0;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return { cpuSeconds: 0, peakRssMb: 0, count: 0 };
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command's closing parenthesis: state, ppid, ..., utime (14th), stime (15th).
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) !== process.pid) continue;
      ticks += Number(f[11]) + Number(f[12]);
      kb += Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      count++;
    } catch {
      // it ended meanwhile
    }
  }
  // USER_HZ is 100 on Linux.
  return { cpuSeconds: ticks / 100, peakRssMb: Math.round(kb / 1024), count };
}
