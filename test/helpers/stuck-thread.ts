// A recognition thread for the pool's own tests (recognition-pool.test.ts): a photo whose content
// type is `stuck` takes three seconds of its thread's processor time (a busy loop, as a costly image
// would; counted in processor time, as the pool counts it, so a busy machine cannot shorten it), one typed
// `sleeping` waits without using the processor; any other answers at once with the thread's id, so a
// test sees which thread read it. Each says which thread it is, as the real thread does.
import { readFileSync, readlinkSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import type { ThreadTask, WarmUpTask } from '../../src/modules/recognition/engines/local/recognition-pool.js';

/** This thread's processor time so far (Linux, 100 ticks a second). */
function ownCpuMs(): number {
  const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export default async function read(task: ThreadTask | WarmUpTask) {
  if ('warmUp' in task) return { threadId, products: 0 };
  task.report?.postMessage(Number(readlinkSync('/proc/thread-self').split('/').pop()));
  task.report?.close();
  if (task.contentType === 'stuck') for (const from = ownCpuMs(); ownCpuMs() - from < 3000;);
  if (task.contentType === 'sleeping') await new Promise((r) => setTimeout(r, 2500));
  return [{ brand: `thread ${threadId}` }];
}
