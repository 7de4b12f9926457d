import { createServer } from 'node:http';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import { createRuntime } from '../src/runtime.js';
import { TASK_QUEUES } from '../workflows/shared/task-queues.js';

/**
 * The worker process: polls the analysis queue (workflows + light activities) and the recognition
 * queue (CPU-heavy activities) with bounded concurrency, so more processes on more machines share the load.
 */
const runtime = await createRuntime('worker');
const { config, logger } = runtime;
const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
const activities = createActivities({ orm: runtime.orm, config, temporal: runtime.temporal, logger });
const workflowsPath = new URL('../workflows/index.ts', import.meta.url).pathname;

const workers = await Promise.all([
  Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: TASK_QUEUES.analyses,
    workflowsPath,
    activities,
    maxConcurrentActivityTaskExecutions: config.ANALYSIS_MAX_CONCURRENT_ACTIVITIES,
    maxConcurrentWorkflowTaskExecutions: 50,
  }),
  Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: TASK_QUEUES.recognition,
    activities,
    maxConcurrentActivityTaskExecutions: Math.max(1, Math.min(4, config.ANALYSIS_MAX_CONCURRENT_ACTIVITIES)),
  }),
]);

const health = createServer((req, res) => {
  const running = workers.every((w) => w.getState() === 'RUNNING');
  res.writeHead(running ? 200 : 503, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: running ? 'ok' : 'unavailable', workers: workers.map((w) => w.getState()) }));
});
health.listen(config.WORKER_HEALTH_PORT, '127.0.0.1');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'worker shutting down');
    workers.forEach((w) => w.shutdown());
  });
}
logger.info({ taskQueues: Object.values(TASK_QUEUES) }, 'worker started');
await Promise.all(workers.map((w) => w.run()));
health.close();
await connection.close();
await runtime.close();
logger.info('worker stopped');
