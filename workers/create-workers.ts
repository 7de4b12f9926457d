import { Worker, type NativeConnection } from '@temporalio/worker';
import { queueActivities, type Activities } from '../activities/index.js';
import type { TaskQueues } from '../src/temporal/contracts/task-queues.js';
import type { Context as ActivityContext } from '@temporalio/activity';
import { OpenTelemetryActivityInboundInterceptor, makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { tracingExport } from '../src/lib/tracing.js';
import { tracedWorkflowBundle, workflowBundle } from './workflow-bundle.js';

export type WorkerSet = {
  connection: NativeConnection;
  namespace: string;
  queues: TaskQueues;
  activities: Activities;
  /** Activity slots of the analyses, tasks and deliveries queues (light steps, each may hold a DB connection). */
  activitySlots: number;
  /** Activity slots of the recognition queue (CPU-heavy). */
  recognitionSlots: number;
  /** WORKFLOW_BUNDLE_PATH: a bundle built ahead; otherwise the code is bundled here, once per process. */
  bundlePath?: string;
  /**
   * Run the workflow code on this thread (the SDK's `debugMode`: the same reusable sandbox, without
   * the thread each workflow worker starts, nor its 5 s deadlock timeout). For tests only (D298): a
   * worker process keeps its threads, so a workflow task never blocks its activities' event loop.
   */
  workflowsOnThisThread?: boolean;
};

/**
 * The four workers of a worker process, used by workers/run-worker.ts and by the tests alike: the analyses,
 * tasks and deliveries queues run workflows and their light activities; the recognition queue runs
 * recognition passes only, so it scales (and is throttled) on its own.
 */
export async function createWorkers(set: WorkerSet): Promise<Worker[]> {
  const { connection, namespace, queues } = set;
  const traced = tracingExport();
  // With tracing on: the workflow code is bundled with the OpenTelemetry workflow interceptors (a
  // prebuilt bundle has none), workflow spans leave the sandbox through a sink, and each activity
  // runs in a span continuing the workflow's trace. Off, none of it is installed.
  const workflows = traced
    ? {
        workflowBundle: await tracedWorkflowBundle(),
        sinks: { exporter: makeWorkflowExporter(traced.processor, traced.resource) },
      }
    : { workflowBundle: set.bundlePath ? { codePath: set.bundlePath } : await workflowBundle() };
  const interceptors = traced
    ? { activity: [(ctx: ActivityContext) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx) })] }
    : undefined;
  const common = { connection, namespace, interceptors, ...(set.workflowsOnThisThread ? { debugMode: true } : {}) };
  return Promise.all([
    // Workflows and their light activities; each activity may hold a database connection. Each queue's
    // worker registers the activities its workflows call (activities/index.ts, QUEUE_ACTIVITIES).
    ...(['analyses', 'tasks', 'deliveries'] as const).map((queue) =>
      Worker.create({
        ...common,
        ...workflows,
        activities: queueActivities(set.activities, queue),
        taskQueue: queues[queue],
        maxConcurrentActivityTaskExecutions: set.activitySlots,
        // Local activities (the image fetch, finalize, the webhook fan-out, a delivery's first attempt)
        // share that bound: each may hold a database connection and a fetch an image's bytes, and the
        // SDK's own default (100) is past the pool (activity slots + 10) and a batch's memory.
        maxConcurrentLocalActivityExecutions: set.activitySlots,
        ...(queue === 'analyses' ? { maxConcurrentWorkflowTaskExecutions: 50 } : {}),
      }),
    ),
    Worker.create({
      ...common,
      activities: queueActivities(set.activities, 'recognition'),
      taskQueue: queues.recognition,
      maxConcurrentActivityTaskExecutions: set.recognitionSlots,
    }),
  ]);
}
