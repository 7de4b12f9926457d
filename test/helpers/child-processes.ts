import { readdirSync, readFileSync } from 'node:fs';
import { procStat } from '../../src/lib/proc-stat.js';

export type ProcessStat = { comm: string; ppid: number; cpuSeconds: number };

/** One process's command name, parent and CPU seconds so far; null if it has ended or this is not Linux. */
export function processStat(pid: number | string): ProcessStat | null {
  const stat = procStat(pid);
  return stat && { comm: stat.comm, ppid: stat.ppid, cpuSeconds: stat.cpuMs / 1000 };
}

/** Every process on the machine, by pid (empty where there is no /proc). */
export function processTable(): Map<number, ProcessStat> {
  const out = new Map<number, ProcessStat>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const pid of pids) {
    const stat = processStat(pid);
    if (stat) out.set(Number(pid), stat);
  }
  return out;
}

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
  let cpuSeconds = 0;
  let kb = 0;
  let count = 0;
  for (const pid of childPids()) {
    try {
      const stat = processStat(pid);
      if (!stat) continue;
      // VmHWM: the peak resident size over the process's life, so reading it once at the end will do.
      kb += Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      cpuSeconds += stat.cpuSeconds;
      count++;
    } catch {
      // it ended meanwhile
    }
  }
  return { cpuSeconds, peakRssMb: Math.round(kb / 1024), count };
}
