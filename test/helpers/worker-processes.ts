import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import protos from '@temporalio/proto';
import { nodeEntry } from './node-entry.js';
import { waitFor } from './wait.js';

const root = resolve(import.meta.dirname, '../..');

/**
 * The production worker entry point as its own process (see worker-process.ts), on the test's
 * queues. No relay unless asked, and then only on a database of the test's own: a relay sweeps the
 * whole database, other test files' rows too.
 */
export function spawnWorker(
  prefix: string,
  opts: { relay?: boolean; env?: Record<string, string> } = {},
): { child: ChildProcess; printed(text: string): Promise<void> } {
  const databaseUrl = opts.env?.DATABASE_URL;
  // The run's database is shared by the test processes running at once: a relay there starts other
  // files' stranded rows on this worker's queues (it did: cli/analyses-retry's, once).
  if (opts.relay && (!databaseUrl || databaseUrl === process.env.DATABASE_URL))
    throw new Error('spawnWorker: a relay sweeps its whole database; give it one of its own (env.DATABASE_URL)');
  // From npm test's bundle (node-entry.ts).
  const child = spawn(process.execPath, nodeEntry('test/helpers/worker-process.ts'), {
    cwd: root,
    env: {
      ...process.env,
      RECOGNIZER: 'slow-scripted',
      TASK_QUEUE_PREFIX: prefix,
      WORKER_HEALTH_PORT: '0',
      LOG_LEVEL: 'warn',
      OUTBOX_RELAY_INTERVAL_MS: opts.relay ? '500' : '3600000',
      OUTBOX_RELAY_GRACE_MS: '2000',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const printed = (text: string) =>
    new Promise<void>((done) => {
      if (out.includes(text)) return done();
      const check = () => out.includes(text) && (child.stdout!.off('data', check), done());
      child.stdout!.on('data', check);
    });
  return { child, printed };
}

export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

/** Waits until a worker polls this task queue for workflow tasks: a spawned worker is up and serving. */
export async function workerPolling(client: Client, namespace: string, taskQueue: string): Promise<void> {
  await waitFor(
    `a worker polling ${taskQueue}`,
    async () => {
      const { pollers } = await client.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: taskQueue },
        taskQueueType: protos.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      return (pollers?.length ?? 0) > 0;
    },
    60_000,
    100,
  );
}
