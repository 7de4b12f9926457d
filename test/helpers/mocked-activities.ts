import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import { Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { SA } from '../../src/temporal/contracts/search-attributes.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';
import { findTemporalCli } from '../../scripts/temporal.js';

/**
 * The workflows on a real Temporal server with activities the test writes as plain functions (as
 * temporalio/samples-typescript test theirs): the workflow logic alone, no database, no API. Under
 * `npm test` the run's dev server (TEMPORAL_ADDRESS); a file run by itself (`npx tsx --test <file>`)
 * starts its own from the Temporal CLI we use everywhere (scripts/temporal.ts), never a download.
 */
export async function mockedActivitiesEnv(): Promise<TestWorkflowEnvironment> {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Installed already by another test file in this process: its workers share that runtime.
  }
  if (process.env.TEMPORAL_ADDRESS)
    return TestWorkflowEnvironment.createFromExistingServer({ address: process.env.TEMPORAL_ADDRESS });
  const cli = findTemporalCli();
  if (!cli) throw new Error('no Temporal CLI (scripts/temporal.ts: TEMPORAL_CLI_PATH, PATH, or its cache)');
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: cli },
      ip: '127.0.0.1',
      searchAttributes: Object.values(SA),
      extraArgs: ['--log-level', 'warn'],
    },
  });
}

/**
 * A worker serving the production workflow bundle with `activities` on a task queue of its own (the
 * recognition queue too: pass the queue as `recognitionTaskQueue`), for a whole test file: one worker
 * started and shut down per test costs seconds each. The bundle npm test built for the run
 * (WORKFLOW_BUNDLE_PATH), or this process's. Its workflows run on the test's thread, as
 * startTestWorkers' do (D298).
 */
export async function startMockedWorker(env: TestWorkflowEnvironment, activities: object) {
  const taskQueue = `mocked-${randomBytes(4).toString('hex')}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: process.env.WORKFLOW_BUNDLE_PATH
      ? { codePath: process.env.WORKFLOW_BUNDLE_PATH }
      : await workflowBundle(),
    activities,
    debugMode: true,
  });
  const running = worker.run();
  return {
    taskQueue,
    async stop() {
      worker.shutdown();
      await running;
    },
  };
}

/**
 * For a test file's suite: the server and one worker with `activities`, started before its tests and
 * stopped after them (`beforeStop` first: what the suite must release for the worker to drain).
 */
export function useMockedWorker(
  activities: object,
  options: { beforeStop?: () => void } = {},
): { readonly env: TestWorkflowEnvironment; readonly taskQueue: string } {
  let env: TestWorkflowEnvironment | undefined;
  let worker: Awaited<ReturnType<typeof startMockedWorker>> | undefined;
  before(async () => {
    env = await mockedActivitiesEnv();
    worker = await startMockedWorker(env, activities);
  });
  after(async () => {
    options.beforeStop?.();
    await worker?.stop();
    await env?.teardown();
  });
  return {
    get env() {
      return env!;
    },
    get taskQueue() {
      return worker!.taskQueue;
    },
  };
}

/**
 * The activity's workflow id: a file's one worker serves every test's workflows, so each mocked
 * activity looks up what its own test scripted by it.
 */
export const callerId = () => Context.current().info.workflowExecution!.workflowId;

/** A workflow's EntityStatus search attribute, as the server has it now. */
export async function entityStatus(env: TestWorkflowEnvironment, workflowId: string): Promise<string | undefined> {
  const described = await env.client.workflow.getHandle(workflowId).describe();
  return described.typedSearchAttributes.get(SA.status);
}
