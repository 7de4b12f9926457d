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
/** The recognition queue's activity slots in test workers. */
export const TEST_RECOGNITION_SLOTS = 4;

export function uniquePrefix(name: string): string {
  return `test-${name}-${randomBytes(4).toString('hex')}-`;
}

/**
 * Real workers (the production workflow bundle and activities) on the test's own task queues, in
 * this process, against the real dev server. The recognizer is the only part a test chooses, and
 * `around` lets a test put its own behaviour around an activity (a lost attempt, say).
 * `recognitionLater`: the recognition queue's worker does not poll until `startRecognition()`, so a
 * test can build a backlog there that no poller has taken tasks from. `activitySlots`: the analyses,
 * tasks and deliveries queues' slots (local activities too), if not TEST_ACTIVITY_SLOTS.
 * The workflow code runs on the test's own thread, in the sandbox a worker thread would hold: each of
 * the three workflow workers' threads cost some 0.4 s of CPU to start, a third of a start (D298).
 * `workflowThreads`: the workers' own threads, as in a worker process, for a test that measures this
 * thread's CPU time or event loop while workflows run.
 */
export async function startTestWorkers(
  runtime: Runtime,
  recognizer: Recognizer,
  around: (activities: Activities) => Activities = (a) => a,
  opts: { recognitionLater?: boolean; activitySlots?: number; workflowThreads?: boolean } = {},
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
    activitySlots: opts.activitySlots ?? TEST_ACTIVITY_SLOTS,
    recognitionSlots: TEST_RECOGNITION_SLOTS,
    bundlePath: runtime.config.WORKFLOW_BUNDLE_PATH,
    workflowsOnThisThread: !opts.workflowThreads,
  });
  const held = opts.recognitionLater ? workers.filter((w) => w.options.taskQueue === queues.recognition) : [];
  const runs = workers.filter((w) => !held.includes(w)).map((w) => w.run());
  let started = held.length === 0;
  const startRecognition = () => {
    if (started) return;
    started = true;
    runs.push(...held.map((w) => w.run()));
  };
  return {
    queues,
    startRecognition,
    async stop() {
      // Run, then shut down, a held worker never started: only a running worker releases its connection.
      startRecognition();
      workers.forEach((w) => w.shutdown());
      await Promise.all(runs);
      await connection.close();
    },
  };
}
