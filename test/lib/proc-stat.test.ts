import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { procStat } from '../../src/lib/proc-stat.js';

describe('procStat', () => {
  it("reads this process's parent, group, state and processor time from /proc", () => {
    const before = procStat(process.pid)!;
    assert.equal(before.ppid, process.ppid);
    assert.equal(before.state, 'R'); // it is running: it is reading its own stat
    assert.ok(before.pgid > 0);
    // Spin until the kernel has counted a tick or two more of this process's time.
    const until = Date.now() + 200;
    while (Date.now() < until);
    assert.ok(procStat('self')!.cpuMs > before.cpuMs);
    assert.ok(procStat('thread-self')!.cpuMs > 0);
  });

  it('is null for a process that does not exist', () => {
    assert.equal(procStat(2 ** 30), null);
  });
});
