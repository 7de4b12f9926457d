import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import {
  ANALYSIS_WORKFLOW,
  analysisProgressQuery,
  type AnalysisActivities,
  type AnalysisOutcome,
  type AnalysisWorkflow,
} from '../../src/temporal/contracts/analysis.js';
import type { DeliveryActivities } from '../../src/temporal/contracts/delivery.js';
import { DATABASE_REFUSED, NEEDS_ATTENTION } from '../../src/temporal/contracts/durable-steps.js';
import type { TaskActivities } from '../../src/temporal/contracts/task.js';
import { callerId, entityStatus, useMockedWorker } from '../helpers/mocked-activities.js';

type Mocked = AnalysisActivities & DeliveryActivities & Pick<TaskActivities, 'completeTaskFromAnalysis'>;
/** What a test scripts for its analysis (each activity's answer, throwing for a failure); what ran, in order. */
type Script = Partial<Mocked> & { log: string[] };

const refused = () => ApplicationFailure.create({ type: DATABASE_REFUSED, message: 'refused', nonRetryable: true });
const outcome = (analysisId: string, status: 'completed' | 'failed', errorCode: string | null = null) =>
  ({
    analysisId,
    status,
    productCount: status === 'completed' ? 4 : 0,
    errorCode,
    eventIds: [`evt-${status}`],
    taskId: null,
  }) satisfies AnalysisOutcome;

/**
 * The analysis workflow's own logic, its activities functions of the test (no database, no
 * recognizer): the steps in order, a failed pass, an image that is not one, a flaky fetch retried,
 * the failures that refund (failAnalysis) with their codes, one that cannot even be recorded, and the
 * task the analysis is for.
 */
// A workflow broken into a loop would hang the run: the suite fails after its timeout instead.
describe('the analysis workflow, with its activities mocked', { timeout: 300_000 }, () => {
  const scripts = new Map<string, Script>();
  const mocked = <K extends keyof Mocked>(name: K, detail: (input: Parameters<Mocked[K]>[0]) => string = () => '') =>
    (async (input: Parameters<Mocked[K]>[0]) => {
      const s = scripts.get(callerId())!;
      s.log.push(`${name}${detail(input)}${Context.current().info.isLocal ? ' (local)' : ''}`);
      const fn = s[name] as ((i: typeof input) => Promise<unknown>) | undefined;
      if (!fn) throw ApplicationFailure.create({ message: `${name} not scripted`, nonRetryable: true });
      return fn(input);
    }) as Mocked[K];
  const activities: Mocked = {
    fetchImage: mocked('fetchImage'),
    recognizeImage: mocked('recognizeImage', ({ runIndex }) => `#${runIndex}`),
    finalizeAnalysis: mocked('finalizeAnalysis'),
    failAnalysis: mocked('failAnalysis', ({ code }) => `:${code}`),
    storePreview: mocked('storePreview'),
    listBatchAnalyses: mocked('listBatchAnalyses'),
    queueBatchForTurn: mocked('queueBatchForTurn'),
    dispatchEvents: mocked('dispatchEvents', ({ eventIds }) => `:${eventIds.join(',')}`),
    deliverEvents: mocked('deliverEvents', ({ eventIds }) => `:${eventIds.join(',')}`),
    attemptDelivery: mocked('attemptDelivery'),
    completeTaskFromAnalysis: mocked('completeTaskFromAnalysis'),
  };
  const temporal = useMockedWorker(activities);

  /** Starts one analysis with `scripted` activities; its handle and what ran. */
  async function analyse(scripted: Partial<Mocked>, taskId: string | null = null) {
    const analysisId = `an-mocked-${randomBytes(4).toString('hex')}`;
    const log: string[] = [];
    const calls: Record<string, unknown[]> = {};
    // Every input as the workflow passed it, by activity.
    const recorded = Object.fromEntries(
      Object.entries(scripted).map(([name, fn]) => [
        name,
        async (input: unknown) => {
          (calls[name] ??= []).push(input);
          return (fn as (i: unknown) => Promise<unknown>)(input);
        },
      ]),
    );
    scripts.set(analysisId, { ...recorded, log });
    const handle = await temporal.env.client.workflow.start<AnalysisWorkflow>(ANALYSIS_WORKFLOW, {
      taskQueue: temporal.taskQueue,
      workflowId: analysisId,
      args: [{ analysisId, recognitionTaskQueue: temporal.taskQueue, taskId, heartbeatTimeoutMs: 20_000 }],
    });
    return { analysisId, handle, log, calls };
  }

  it('fetches, runs every pass, finalizes, dispatches, then stores the preview; completed', async () => {
    const { analysisId, handle, log, calls } = await analyse({
      fetchImage: async () => ({ totalRuns: 3, width: 10, height: 10 }),
      recognizeImage: async () => ({ productCount: 4 }),
      finalizeAnalysis: async ({ analysisId: id }) => outcome(id, 'completed'),
      deliverEvents: async ({ eventIds }) => ({ deliveries: eventIds.length, deliveredHere: eventIds.length }),
      storePreview: async () => undefined,
    });
    assert.deepEqual(await handle.result(), { analysisId, status: 'completed', productCount: 4, errorCode: null });
    assert.deepEqual(log.slice(0, 1), ['fetchImage (local)']);
    assert.deepEqual(log.slice(1, 4).sort(), ['recognizeImage#0', 'recognizeImage#1', 'recognizeImage#2']);
    // The deliveries' first attempts (deliverEvents) and the preview run side by side.
    assert.deepEqual(log.slice(4, 5), ['finalizeAnalysis (local)']);
    assert.deepEqual(log.slice(5).sort(), ['deliverEvents:evt-completed (local)', 'storePreview (local)']);
    // The preview is made after the result: the fetch is told so, and finalize keeps the photo for it.
    assert.deepEqual(calls.fetchImage, [{ analysisId, previewLater: true }]);
    assert.deepEqual(calls.finalizeAnalysis, [{ analysisId, failedPasses: [], keepImage: true }]);
    assert.deepEqual(await handle.query(analysisProgressQuery), { stage: 'done', passesDone: 3, passesFailed: 0 });
    assert.equal(await entityStatus(temporal.env, analysisId), 'completed');
  });

  it('first delivery attempts that fail for good leave the deliveries to their workflows (dispatchEvents), the analysis completed', async () => {
    const { analysisId, handle, log } = await analyse({
      fetchImage: async () => ({ totalRuns: 1, width: 10, height: 10 }),
      recognizeImage: async () => ({ productCount: 1 }),
      finalizeAnalysis: async ({ analysisId: id }) => outcome(id, 'completed'),
      deliverEvents: async () => {
        throw ApplicationFailure.create({ type: 'DATABASE_REFUSED', message: 'refused', nonRetryable: true });
      },
      dispatchEvents: async ({ eventIds }) => ({ deliveries: eventIds.length }),
      storePreview: async () => undefined,
    });
    assert.equal((await handle.result()).status, 'completed');
    assert.ok(log.includes('deliverEvents:evt-completed (local)'));
    assert.ok(log.includes('dispatchEvents:evt-completed'), `the ordinary activity starts the workflows: ${log}`);
    assert.equal(await entityStatus(temporal.env, analysisId), 'completed');
  });

  it('a pass the recognizer rejects is finalized as a failed pass; the others count', async () => {
    const { analysisId, handle, calls } = await analyse({
      fetchImage: async () => ({ totalRuns: 3, width: 10, height: 10 }),
      recognizeImage: async ({ runIndex }) => {
        if (runIndex === 1)
          throw ApplicationFailure.create({
            type: 'RecognitionRejectedError',
            message: 'no shelf',
            nonRetryable: true,
          });
        return { productCount: 4 };
      },
      finalizeAnalysis: async ({ analysisId: id }) => outcome(id, 'completed'),
      deliverEvents: async () => ({ deliveries: 0, deliveredHere: 0 }),
      storePreview: async () => undefined,
    });
    assert.equal((await handle.result()).status, 'completed');
    assert.deepEqual(calls.finalizeAnalysis, [
      { analysisId, failedPasses: [{ runIndex: 1, message: 'no shelf' }], keepImage: true },
    ]);
    assert.deepEqual(await handle.query(analysisProgressQuery), { stage: 'done', passesDone: 2, passesFailed: 1 });
  });

  it('an image that is not one is failed with its code at once: no pass, no retry of the fetch', async () => {
    const { analysisId, handle, log, calls } = await analyse({
      fetchImage: async () => {
        throw ApplicationFailure.create({ type: 'IMAGE_NOT_AN_IMAGE', message: 'text/html', nonRetryable: true });
      },
      failAnalysis: async ({ analysisId: id, code }) => outcome(id, 'failed', code),
      deliverEvents: async () => ({ deliveries: 1, deliveredHere: 1 }),
      storePreview: async () => undefined,
    });
    assert.deepEqual(await handle.result(), {
      analysisId,
      status: 'failed',
      productCount: 0,
      errorCode: 'IMAGE_NOT_AN_IMAGE',
    });
    assert.deepEqual(log.slice(0, 2), ['fetchImage (local)', 'failAnalysis:IMAGE_NOT_AN_IMAGE']);
    assert.deepEqual(log.slice(2).sort(), ['deliverEvents:evt-failed (local)', 'storePreview (local)']);
    assert.deepEqual(calls.failAnalysis, [
      { analysisId, code: 'IMAGE_NOT_AN_IMAGE', message: 'text/html', keepImage: true },
    ]);
    assert.equal(await entityStatus(temporal.env, analysisId), 'failed');
  });

  it('a fetch that fails once is tried again, and the analysis goes on', async () => {
    let tries = 0;
    const { handle, log } = await analyse({
      fetchImage: async () => {
        if (++tries === 1) throw new Error('socket hang up');
        return { totalRuns: 1, width: 10, height: 10 };
      },
      recognizeImage: async () => ({ productCount: 4 }),
      finalizeAnalysis: async ({ analysisId: id }) => outcome(id, 'completed'),
      deliverEvents: async () => ({ deliveries: 0, deliveredHere: 0 }),
      storePreview: async () => undefined,
    });
    assert.equal((await handle.result()).status, 'completed');
    assert.deepEqual(log.slice(0, 3), ['fetchImage (local)', 'fetchImage (local)', 'recognizeImage#0']);
  });

  it('every pass failing because of the image fails the analysis with the image code, not RECOGNITION_FAILED', async () => {
    const { handle, log } = await analyse({
      fetchImage: async () => ({ totalRuns: 2, width: 10, height: 10 }),
      recognizeImage: async () => {
        throw ApplicationFailure.create({ type: 'IMAGE_TOO_COMPLEX', message: 'too many labels', nonRetryable: true });
      },
      failAnalysis: async ({ analysisId: id, code }) => outcome(id, 'failed', code),
      deliverEvents: async () => ({ deliveries: 0, deliveredHere: 0 }),
      storePreview: async () => undefined,
    });
    assert.equal((await handle.result()).errorCode, 'IMAGE_TOO_COMPLEX');
    assert.ok(!log.some((l) => l.startsWith('finalizeAnalysis')));
  });

  it('a result the database refuses is failed as RESULT_NOT_STORABLE (refunded)', async () => {
    const { analysisId, handle, calls } = await analyse({
      fetchImage: async () => ({ totalRuns: 1, width: 10, height: 10 }),
      recognizeImage: async () => ({ productCount: 4 }),
      finalizeAnalysis: async () => {
        throw refused();
      },
      failAnalysis: async ({ analysisId: id, code }) => outcome(id, 'failed', code),
      deliverEvents: async () => ({ deliveries: 0, deliveredHere: 0 }),
      storePreview: async () => undefined,
    });
    assert.equal((await handle.result()).errorCode, 'RESULT_NOT_STORABLE');
    assert.deepEqual(calls.finalizeAnalysis?.length, 1, 'a refusal is not retried');
    assert.deepEqual(calls.failAnalysis, [
      { analysisId, code: 'RESULT_NOT_STORABLE', message: 'The result could not be stored. refused', keepImage: true },
    ]);
  });

  it('an analysis whose failure cannot be recorded either fails its workflow, marked for an operator', async () => {
    const { analysisId, handle, log } = await analyse({
      fetchImage: async () => {
        throw ApplicationFailure.create({ type: 'IMAGE_HTTP_ERROR', message: '404', nonRetryable: true });
      },
      failAnalysis: async () => {
        throw refused();
      },
    });
    const err = await handle.result().then(
      () => assert.fail('the workflow completed'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowFailedError, String(err));
    assert.deepEqual(log, ['fetchImage (local)', 'failAnalysis:IMAGE_HTTP_ERROR']);
    assert.equal(await entityStatus(temporal.env, analysisId), NEEDS_ATTENTION);
  });

  it('for a task whose workflow has ended, the analysis records itself on the task directly', async () => {
    const taskId = `tsk-ended-${randomBytes(4).toString('hex')}`;
    const { analysisId, handle, log, calls } = await analyse(
      {
        fetchImage: async () => ({ totalRuns: 1, width: 10, height: 10 }),
        recognizeImage: async () => ({ productCount: 4 }),
        finalizeAnalysis: async ({ analysisId: id }) => outcome(id, 'completed'),
        deliverEvents: async () => ({ deliveries: 0, deliveredHere: 0 }),
        completeTaskFromAnalysis: async () => null,
        storePreview: async () => undefined,
      },
      taskId,
    );
    assert.equal((await handle.result()).status, 'completed');
    assert.deepEqual(calls.completeTaskFromAnalysis, [{ taskId, analysisId }]);
    assert.deepEqual(log.slice(-2), ['completeTaskFromAnalysis', 'storePreview (local)']);
  });

  it('a fetch that finds the analysis final already finalizes it again, with no pass', async () => {
    const { analysisId, handle, log } = await analyse({
      fetchImage: async () => ({ alreadyFinal: true }),
      finalizeAnalysis: async ({ analysisId: id }) => outcome(id, 'completed'),
      deliverEvents: async () => ({ deliveries: 0, deliveredHere: 0 }),
      storePreview: async () => undefined,
    });
    assert.deepEqual(await handle.result(), { analysisId, status: 'completed', productCount: 4, errorCode: null });
    assert.deepEqual(log.slice(0, 2), ['fetchImage (local)', 'finalizeAnalysis']);
    assert.deepEqual(log.slice(2).sort(), ['deliverEvents:evt-completed (local)', 'storePreview (local)']);
  });
});
