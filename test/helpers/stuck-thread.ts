// A recognition thread for the pool's own tests (recognition-pool.test.ts): a photo whose content
// type is `stuck` never finishes (a busy loop, as a pathological image would hold a core), one typed
// `sleeping` waits without using the processor; any other answers at once with the thread's id, so a
// test sees which thread read it. Each says which thread it is, as the real thread does.
import { readlinkSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import type { ThreadTask, WarmUpTask } from '../../src/modules/recognition/engines/local/recognition-pool.js';

export default async function read(task: ThreadTask | WarmUpTask) {
  if ('warmUp' in task) return { threadId, products: 0 };
  task.report?.postMessage(Number(readlinkSync('/proc/thread-self').split('/').pop()));
  task.report?.close();
  if (task.contentType === 'stuck') for (;;);
  if (task.contentType === 'sleeping') await new Promise((r) => setTimeout(r, 2500));
  return [{ brand: `thread ${threadId}` }];
}
