import { createServer } from 'node:http';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { RequestContext } from '@mikro-orm/core';
import { createActivities } from '../activities/index.js';
import { RecognitionEngines } from '../src/modules/recognition/engines/index.js';
import type { Recognizer, RecognizerFactory } from '../src/modules/recognition/recognizer.js';
import { configOrExit, type Config } from '../src/config.js';
import type { Logger } from '../src/lib/logger.js';
import { temporalClientOn } from '../src/temporal/client.js';
import { sdkLogger } from '../src/temporal/sdk-logger.js';
import { createRuntime } from '../src/runtime.js';
import { taskQueues } from '../src/temporal/contracts/task-queues.js';
import { registry } from '../src/lib/metrics.js';
import { createWorkers } from './create-workers.js';
import { prebuiltWorkflowBundle } from './workflow-bundle.js';
import { startHousekeeping } from './housekeeping.js';
import { startOutboxRelay } from './outbox-relay.js';

/** The SDK's own logs go through our logger, at our level; its metrics are served for Prometheus. */
function installSdkRuntime(config: Config, logger: Logger) {
  Runtime.install({
    // The SDK's own metrics (task slots, schedule-to-start latency, activity latency and failures,
    // sticky cache) in Prometheus format, from the SDK's core.
    // Prometheus conventions: `_total` counters, seconds, units in histogram names.
    telemetryOptions: {
      metrics: {
        prometheus: {
          bindAddress: `${config.METRICS_HOST}:${config.TEMPORAL_METRICS_PORT}`,
          countersTotalSuffix: true,
          unitSuffix: true,
          useSecondsForDurations: true,
        },
      },
    },
    logger: sdkLogger(config.LOG_LEVEL, logger),
  });
}

export type WorkerOptions = {
  /** Recognition engines besides the production ones, by RECOGNIZER name (a test's scripted one). */
  recognizers?: Record<string, RecognizerFactory>;
  /**
   * The workflow code on this process's main thread instead of a thread per workflow worker (the
   * SDK's debugMode, as the test workers in a test's own process run it, D298): the worker processes
   * tests spawn, started some twenty times a run, each paying 0.4 s of CPU a thread otherwise. Not for
   * production: it gives up the SDK's deadlock timeout, and the thread hop keeps workflow tasks off
   * the thread that runs activities.
   */
  workflowsOnThisThread?: boolean;
};

/**
 * The worker process: polls the analysis queue (workflows + light activities) and the recognition
 * queue (CPU-heavy activities) with bounded concurrency, so more processes on more machines share the
 * load; runs the outbox relay and housekeeping. Resolves once it has stopped (SIGINT or SIGTERM).
 */
export async function runWorker(options: WorkerOptions = {}): Promise<void> {
  const base = configOrExit();
  // The process's one Temporal client is on the connection its workers poll with (client.ts: eager starts).
  const runtime = await createRuntime(
    'worker',
    {
      // Each concurrent activity may hold a connection (finalize runs a transaction): size the pool to match.
      DATABASE_POOL_MAX: Math.max(base.DATABASE_POOL_MAX, base.ANALYSIS_MAX_CONCURRENT_ACTIVITIES + 10),
      // The API's short wait for a connection is so a client hears 503 at once; an activity has no
      // client waiting, and a wait for a busy pool under a backlog is cheaper than a failed attempt.
      DATABASE_ACQUIRE_TIMEOUT_MS: Math.max(base.DATABASE_ACQUIRE_TIMEOUT_MS, 60_000),
    },
    async (cfg, log) => {
      installSdkRuntime(cfg, log);
      return temporalClientOn(
        await NativeConnection.connect({ address: cfg.TEMPORAL_ADDRESS }),
        cfg.TEMPORAL_NAMESPACE,
      );
    },
  );
  const { config, logger, services, commands } = runtime;
  const connection = runtime.temporal.connection as NativeConnection;
  /** The relay and housekeeping, like activities and requests, each run in their own MikroORM context. */
  const inContext = <T>(fn: () => Promise<T>) => RequestContext.create(runtime.orm.em, fn);
  const TASK_QUEUES = taskQueues(config.TASK_QUEUE_PREFIX);
  const engines = new RecognitionEngines(options.recognizers);
  let recognizer: Promise<Recognizer> | undefined;
  if (config.RECOGNIZER === 'local') {
    // The local recognizer's threads start now and each reads a small warm-up photo, so the first
    // analyses after a start are not the ones that wait for the OCR engine to load.
    const local = engines.create('local');
    recognizer = local;
    local
      .then(() => engines.localPool()?.warm())
      .catch((err: unknown) => logger.warn({ err }, 'recognition threads not warmed up; the first photos will be'));
  }
  // The runtime's services and commands: one graph in the process, for its activities, relay and housekeeping.
  const activities = createActivities({
    orm: runtime.orm,
    config,
    client: runtime.temporal.client,
    eagerStarts: runtime.temporal.eagerStarts,
    logger,
    services,
    commands,
    recognizer: () => (recognizer ??= engines.create(config.RECOGNIZER)),
  });
  const bundlePath = config.WORKFLOW_BUNDLE_PATH ?? prebuiltWorkflowBundle();
  logger.info({ workflowBundle: bundlePath ?? 'bundled from workflows/ at start' }, 'workflow code');
  const workers = await createWorkers({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    queues: TASK_QUEUES,
    activities,
    activitySlots: config.ANALYSIS_MAX_CONCURRENT_ACTIVITIES,
    // The local recognizer reads one photo per thread: taking more would only queue them here, where
    // no other worker process can pick them up (and their heartbeats would say they are being read).
    recognitionSlots:
      config.RECOGNIZER === 'local'
        ? config.RECOGNITION_THREADS
        : Math.max(1, Math.min(4, config.ANALYSIS_MAX_CONCURRENT_ACTIVITIES)),
    bundlePath,
    workflowsOnThisThread: options.workflowsOnThisThread,
  });

  // Health at any path, and the service's own metrics (lib/metrics.ts) at /metrics.
  const health = createServer((req, res) => {
    if (req.url === '/metrics') {
      registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text))
        .catch((err: unknown) => res.writeHead(500).end(String(err)));
      return;
    }
    const running = workers.every((w) => w.getState() === 'RUNNING');
    res.writeHead(running ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: running ? 'ok' : 'unavailable', workers: workers.map((w) => w.getState()) }));
  });
  health.listen(config.WORKER_HEALTH_PORT, config.METRICS_HOST);

  // One shutdown whatever arrives: under `npm start` a Ctrl-C reaches this process and start.ts, which
  // then sends SIGTERM too, and a second shutdown() of a draining worker throws.
  let shuttingDown = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (shuttingDown) return;
      shuttingDown = true;
      logger.info({ signal }, 'worker shutting down');
      workers.forEach((w) => w.shutdown());
      // Whatever still runs then (a decode in libvips' threads, a step stuck on a dead connection) does
      // not keep the process: it exits, and its recognition threads and OCR helpers end with it. The
      // server hands unfinished steps to another worker after their heartbeat or start-to-close timeout.
      setTimeout(() => {
        logger.error({ deadlineMs: config.WORKER_STOP_DEADLINE_MS }, 'worker did not stop in time; exiting');
        process.exit(1);
      }, config.WORKER_STOP_DEADLINE_MS).unref();
    });
  }
  const stopRelay = startOutboxRelay({ commands, config, logger, inContext });
  const stopHousekeeping = startHousekeeping({ services, config, logger, inContext });

  logger.info({ taskQueues: Object.values(TASK_QUEUES) }, 'worker started');
  await Promise.all(workers.map((w) => w.run()));
  stopRelay();
  await engines.close();
  stopHousekeeping();
  health.close();
  await runtime.close();
  logger.info('worker stopped');
}
