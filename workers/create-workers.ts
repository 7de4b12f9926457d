import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname } from 'node:path';
import {
  bundleWorkflowCode,
  DefaultLogger,
  Worker,
  type NativeConnection,
  type WorkflowBundle,
} from '@temporalio/worker';
import { queueActivities, type Activities } from '../activities/index.js';
import type { TaskQueues } from '../src/temporal/contracts/task-queues.js';
import { createRequire } from 'node:module';
import type { Context as ActivityContext } from '@temporalio/activity';
import { OpenTelemetryActivityInboundInterceptor, makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { tracingExport } from '../src/lib/tracing.js';

const workflowsPath = new URL('../workflows/index.ts', import.meta.url).pathname;

/**
 * The bundle `npm run build` writes next to the compiled code (dist/workflow-bundle.js), if this is
 * the compiled code; from the sources there is none and the workers bundle at start.
 */
export function prebuiltWorkflowBundle(): string | undefined {
  const path = fileURLToPath(new URL('../workflow-bundle.js', import.meta.url));
  return import.meta.url.endsWith('.js') && existsSync(path) ? path : undefined;
}
let bundle: Promise<WorkflowBundle> | undefined;

/** The workflow code, bundled once per process and shared by every worker (each bundling takes seconds). */
export function workflowBundle(): Promise<WorkflowBundle> {
  return (bundle ??= bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') }));
}

let tracedBundle: Promise<WorkflowBundle> | undefined;
function tracedWorkflowBundle(): Promise<WorkflowBundle> {
  return (tracedBundle ??= bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: [
      createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
    ],
    logger: new DefaultLogger('WARN'),
  }));
}

/** Bundles the workflow code into a file, for WORKFLOW_BUNDLE_PATH (npm test does it once per run). */
export async function writeWorkflowBundle(path: string): Promise<void> {
  const { code } = await workflowBundle();
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, code);
}

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
