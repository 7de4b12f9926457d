import { randomBytes } from 'node:crypto';
import { DefaultLogger, NativeConnection, Runtime as TemporalRuntime } from '@temporalio/worker';
import { createActivities, type Activities } from '../../activities/index.js';
import { createWorkers } from '../../workers/create-workers.js';
import type { Recognizer } from '../../src/modules/recognition/recognizer.js';
import type { Runtime } from '../../src/runtime.js';
import { taskQueues } from '../../src/temporal/contracts/task-queues.js';

let installed = false;
function quietTemporal() {
  if (installed) return;
  installed = true;
  try {
    TemporalRuntime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // The test's API installed it first (createApiTemporalClient): its workers share that runtime.
  }
}

/** The activity slots test workers get per queue (local activities share them). */
export const TEST_ACTIVITY_SLOTS = 8;

export function uniquePrefix(name: string): string {
  return `test-${name}-${randomBytes(4).toString('hex')}-`;
}

/**
 * Real workers (the production workflow bundle and activities) on the test's own task queues, in
 * this process, against the real dev server. The recognizer is the only part a test chooses, and
 * `around` lets a test put its own behaviour around an activity (a lost attempt, say).
 */
export async function startTestWorkers(
  runtime: Runtime,
  recognizer: Recognizer,
  around: (activities: Activities) => Activities = (a) => a,
) {
  quietTemporal();
  const queues = taskQueues(runtime.config.TASK_QUEUE_PREFIX);
  const connection = await NativeConnection.connect({ address: runtime.config.TEMPORAL_ADDRESS });
  const activities = around(
    createActivities({
      orm: runtime.orm,
      config: runtime.config,
      client: runtime.temporal.client,
      recognizer: async () => recognizer,
    }),
  );
  // The production set of workers (one workflow bundle per test process), with test-sized slots.
  const workers = await createWorkers({
    connection,
    namespace: runtime.config.TEMPORAL_NAMESPACE,
    queues,
    activities,
    activitySlots: TEST_ACTIVITY_SLOTS,
    recognitionSlots: 4,
    bundlePath: runtime.config.WORKFLOW_BUNDLE_PATH,
  });
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
