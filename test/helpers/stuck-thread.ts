// A recognition thread for the pool's own tests (recognition-pool.test.ts). Processor time is counted
// as the pool counts it (this thread's, from /proc), so a busy machine cannot shorten any of these:
// - `costly`: three seconds of processor time in stages of 50 ms, with the recognizer's checkpoint
//   (photo-stop.ts) between stages, as a costly image would run on the real recognizer;
// - `stuck`: the same three seconds with no checkpoint at all, as a stage that never ends would;
// - `sleeping`: waits two and a half seconds without using the processor;
// - `probe`: answers at once, with how much processor time this thread has spent since the last
//   costly or stuck photo started (in `units`), so a test sees when the thread took it;
// - anything else answers at once.
// Every photo answers with the thread's id (in `brand`), so a test sees which thread read it, and says
// which thread it is, as the real thread does.
import { readlinkSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { procStat } from '../../src/lib/proc-stat.js';
import { checkpoint, readUntilStopped } from '../../src/modules/recognition/engines/local/photo-stop.js';
import type { ThreadTask, WarmUpTask } from '../../src/modules/recognition/engines/local/recognition-pool.js';

/** This thread's processor time so far (Linux, 100 ticks a second). */
function ownCpuMs(): number {
  return procStat('thread-self')!.cpuMs;
}

const COSTLY_MS = 3000;
const STAGE_MS = 50;
let costlyFrom = 0;

export default async function read(task: ThreadTask | WarmUpTask) {
  if ('warmUp' in task) return { threadId, products: 0 };
  task.report?.postMessage(Number(readlinkSync('/proc/thread-self').split('/').pop()));
  task.report?.close();
  const answer = [{ brand: `thread ${threadId}`, units: 0 }];
  if (task.contentType === 'costly' || task.contentType === 'stuck') {
    const checkpoints = task.contentType === 'costly';
    costlyFrom = ownCpuMs();
    await readUntilStopped(task.stop, async () => {
      while (ownCpuMs() - costlyFrom < COSTLY_MS) {
        for (const from = ownCpuMs(); ownCpuMs() - from < STAGE_MS;);
        if (checkpoints) checkpoint();
      }
    });
  }
  if (task.contentType === 'sleeping') await new Promise((r) => setTimeout(r, 2500));
  if (task.contentType === 'probe') answer[0]!.units = ownCpuMs() - costlyFrom;
  return answer;
}
