import { randomBytes } from 'node:crypto';
import { DefaultLogger, NativeConnection, Runtime as TemporalRuntime, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities/index.js';
import type { Recognizer } from '../../src/modules/recognition/recognizer.js';
import type { Runtime } from '../../src/runtime.js';
import { taskQueues } from '../../src/temporal/contracts/task-queues.js';

let installed = false;
function quietTemporal() {
  if (installed) return;
  installed = true;
  TemporalRuntime.install({ logger: new DefaultLogger('WARN') });
}

const workflowsPath = new URL('../../workflows/index.ts', import.meta.url).pathname;

export function uniquePrefix(name: string): string {
  return `test-${name}-${randomBytes(4).toString('hex')}-`;
}

/**
 * Real workers (the production workflow bundle and activities) on the test's own task queues, in
 * this process, against the real dev server. The recognizer is the only part a test chooses.
 */
export async function startTestWorkers(runtime: Runtime, recognizer: Recognizer) {
  quietTemporal();
  const queues = taskQueues(runtime.config.TASK_QUEUE_PREFIX);
  const connection = await NativeConnection.connect({ address: runtime.config.TEMPORAL_ADDRESS });
  const activities = createActivities({ orm: runtime.orm, config: runtime.config, client: runtime.temporal.client, recognizer: async () => recognizer });
  const workers = await Promise.all([
    Worker.create({ connection, taskQueue: queues.analyses, workflowsPath, activities, namespace: runtime.config.TEMPORAL_NAMESPACE, maxConcurrentActivityTaskExecutions: 8 }),
    Worker.create({ connection, taskQueue: queues.tasks, workflowsPath, activities, namespace: runtime.config.TEMPORAL_NAMESPACE, maxConcurrentActivityTaskExecutions: 8 }),
    Worker.create({ connection, taskQueue: queues.deliveries, workflowsPath, activities, namespace: runtime.config.TEMPORAL_NAMESPACE, maxConcurrentActivityTaskExecutions: 8 }),
    Worker.create({ connection, taskQueue: queues.recognition, activities, namespace: runtime.config.TEMPORAL_NAMESPACE, maxConcurrentActivityTaskExecutions: 4 }),
  ]);
  const running = Promise.all(workers.map((w) => w.run()));
  return {
    queues,
    async stop() {
      workers.forEach((w) => w.shutdown());
      await running;
      await connection.close();
    },
  };
}
