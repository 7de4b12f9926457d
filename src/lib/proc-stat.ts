import { readFileSync } from 'node:fs';

/** What Linux's /proc/<…>/stat says of a process or thread that recognition, the tests and the tools read. */
export type ProcStat = {
  comm: string;
  /** R running, S sleeping, Z ended and not yet reaped, … */
  state: string;
  ppid: number;
  pgid: number;
  nice: number;
  /** User + system processor time so far, in ms (USER_HZ is 100 on Linux). */
  cpuMs: number;
};

/**
 * The stat of a process or thread: `of` is what sits between /proc/ and /stat ("1234",
 * "self/task/1240", "thread-self"). Null when it has ended or there is no /proc (not Linux).
 * One parser, so the command name (which may hold spaces and parentheses) is cut at its last ")".
 */
export function procStat(of: number | string): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${of}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields after the command's closing parenthesis: state (3rd), ppid, pgrp, …, utime (14th), stime (15th), …, nice (19th).
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    state: f[0]!,
    ppid: Number(f[1]),
    pgid: Number(f[2]),
    nice: Number(f[16]),
    cpuMs: (Number(f[11]) + Number(f[12])) * 10,
  };
}
