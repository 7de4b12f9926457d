import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import {
  BATCH_TURNS_WORKFLOW,
  BATCH_WINDOW,
  BATCH_WORKFLOW,
  ORGANISATION_BATCHES_AT_ONCE,
  batchProgressQuery,
  batchTurnsWorkflowId,
  batchWaitingSignal,
  type AnalysisActivities,
  type BatchMember,
  type BatchWorkflow,
} from '../../src/temporal/contracts/analysis.js';
import type { DeliveryActivities } from '../../src/temporal/contracts/delivery.js';
import { DATABASE_REFUSED, NEEDS_ATTENTION } from '../../src/temporal/contracts/durable-steps.js';
import { callerId, entityStatus, useMockedWorker } from '../helpers/mocked-activities.js';

/**
 * The batch workflow's own logic, its children real analysis workflows and every activity a
 * function of the test (no database): one child per image, never more than BATCH_WINDOW in flight,
 * the counts and status as they close, and a batch whose list cannot be read marked for an operator.
 */
// A workflow broken into a loop would hang the run: the suite fails after its timeout instead.
describe('the batch workflow, with its activities mocked', { timeout: 300_000 }, () => {
  /** Per batch id: its analyses. */
  const batches = new Map<string, BatchMember[] | 'refused'>();
  /** Analyses whose image is not one. */
  const notImages = new Set<string>();
  /** Recognition passes running now, most at once, and a gate the passes wait on. */
  let running = 0;
  let most = 0;
  let open!: () => void;
  let gate = Promise.resolve();
  let arrived: (() => void) | null = null;
  let expected = 0;
  /** Batches the test waits to see in their line: called once each has asked. */
  const inLine = new Map<string, () => void>();
  const activities: AnalysisActivities & DeliveryActivities = {
    async listBatchAnalyses({ batchId }) {
      const members = batches.get(batchId)!;
      if (members === 'refused')
        throw ApplicationFailure.create({ type: DATABASE_REFUSED, message: 'refused', nonRetryable: true });
      return members;
    },
    async fetchImage({ analysisId }) {
      if (notImages.has(analysisId))
        throw ApplicationFailure.create({ type: 'IMAGE_NOT_AN_IMAGE', message: 'text/html', nonRetryable: true });
      return { totalRuns: 1, width: 10, height: 10 };
    },
    async recognizeImage() {
      most = Math.max(most, ++running);
      if (running === expected) arrived?.();
      await gate;
      running--;
      return { productCount: 1 };
    },
    async finalizeAnalysis({ analysisId }) {
      return { analysisId, status: 'completed', productCount: 1, errorCode: null, eventIds: [], taskId: null };
    },
    async failAnalysis({ analysisId, code }) {
      return { analysisId, status: 'failed', productCount: 0, errorCode: code, eventIds: [], taskId: null };
    },
    async storePreview() {},
    // What the real activity does (AnalysisCommands.queueBatchForTurn), on this suite's task queue.
    async queueBatchForTurn({ organisationId, batchId }) {
      await temporal.env.client.workflow.signalWithStart(BATCH_TURNS_WORKFLOW, {
        workflowId: batchTurnsWorkflowId(organisationId),
        taskQueue: temporal.taskQueue,
        args: [{ organisationId }],
        signal: batchWaitingSignal,
        signalArgs: [{ batchId }],
      });
      inLine.get(batchId)?.();
    },
    async deliverEvents() {
      return { deliveries: 0, deliveredHere: 0 };
    },
    async dispatchEvents() {
      return { deliveries: 0 };
    },
    async attemptDelivery() {
      throw new Error(`no delivery from ${callerId()}`);
    },
  };
  const temporal = useMockedWorker(activities, { beforeStop: () => open?.() });

  // An organisation of this run's own: its line of batches is a workflow by its id on the server.
  const organisation = `org-mocked-${randomBytes(4).toString('hex')}`;
  const member = (id: string, organisationId = organisation): BatchMember => ({
    id,
    organisationId,
    imageUrl: 'https://images.example/shelf.png',
    externalId: null,
    placeId: null,
    taskId: null,
  });
  const startBatch = (batchId: string) =>
    temporal.env.client.workflow.start<BatchWorkflow>(BATCH_WORKFLOW, {
      taskQueue: temporal.taskQueue,
      workflowId: batchId,
      args: [{ batchId, recognitionTaskQueue: temporal.taskQueue, heartbeatTimeoutMs: 20_000 }],
    });

  it(`starts one child per image, never more than ${BATCH_WINDOW} in flight, and counts them as they close`, async () => {
    const batchId = `bat-mocked-${randomBytes(4).toString('hex')}`;
    const ids = Array.from({ length: BATCH_WINDOW + 3 }, (_, i) => `${batchId}-an-${i}`);
    batches.set(
      batchId,
      ids.map((id) => member(id)),
    );
    notImages.add(ids[2]!);
    // The window's passes are held until all of it has arrived: the batch cannot start another
    // while none has closed (the one that is not an image closes at once and lets one more in).
    gate = new Promise<void>((r) => (open = r));
    expected = BATCH_WINDOW;
    const windowFull = new Promise<void>((r) => (arrived = r));
    const handle = await startBatch(batchId);
    await windowFull;
    const started = (await handle.fetchHistory()).events!.filter(
      (e) => e.startChildWorkflowExecutionInitiatedEventAttributes,
    ).length;
    assert.equal(started, BATCH_WINDOW + 1, 'the window, and one more for the child that failed at once');
    assert.deepEqual(await handle.query(batchProgressQuery), {
      status: 'partial',
      total: ids.length,
      completed: 0,
      failed: 1,
    });
    open();
    assert.deepEqual(await handle.result(), {
      status: 'completed',
      total: ids.length,
      completed: ids.length - 1,
      failed: 1,
    });
    assert.equal(most, BATCH_WINDOW);
    assert.equal(await entityStatus(temporal.env, batchId), 'completed');
    // Each child is the analysis of its image, and the batch's.
    for (const id of [ids[0]!, ids.at(-1)!]) {
      const child = await temporal.env.client.workflow.getHandle(id).describe();
      assert.equal(child.parentExecution?.workflowId, batchId);
      assert.equal(child.status.name, 'COMPLETED');
    }
  });

  it(`runs ${ORGANISATION_BATCHES_AT_ONCE} of an organisation's batches at once; the next starts when one ends`, async () => {
    const org = `org-line-${randomBytes(4).toString('hex')}`;
    const batchIds = Array.from(
      { length: ORGANISATION_BATCHES_AT_ONCE + 1 },
      (_, b) => `bat-line-${b}-${randomBytes(4).toString('hex')}`,
    );
    for (const batchId of batchIds)
      batches.set(
        batchId,
        Array.from({ length: BATCH_WINDOW + 2 }, (_, i) => member(`${batchId}-an-${i}`, org)),
      );
    // Every pass is held: the batches in their turn fill their windows, and wait there.
    gate = new Promise<void>((r) => (open = r));
    most = 0;
    expected = ORGANISATION_BATCHES_AT_ONCE * BATCH_WINDOW;
    const turnsFull = new Promise<void>((r) => (arrived = r));
    const handles: Awaited<ReturnType<typeof startBatch>>[] = [];
    // One after the other: the line serves them in the order they asked.
    for (const batchId of batchIds) {
      const asked = new Promise<void>((r) => inLine.set(batchId, r));
      handles.push(await startBatch(batchId));
      await asked;
    }
    await turnsFull;
    const childrenOf = async (h: (typeof handles)[number]) =>
      (await h.fetchHistory()).events!.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length;
    const last = handles.at(-1)!;
    // The line has granted every turn it has (each holder's window is full) and the last batch waits.
    assert.deepEqual(await Promise.all(handles.map(childrenOf)), [
      ...Array.from({ length: ORGANISATION_BATCHES_AT_ONCE }, () => BATCH_WINDOW),
      0,
    ]);
    assert.deepEqual(await last.query(batchProgressQuery), {
      status: 'processing',
      total: BATCH_WINDOW + 2,
      completed: 0,
      failed: 0,
    });
    open();
    for (const h of handles)
      assert.deepEqual(await h.result(), {
        status: 'completed',
        total: BATCH_WINDOW + 2,
        completed: BATCH_WINDOW + 2,
        failed: 0,
      });
    assert.equal(most, ORGANISATION_BATCHES_AT_ONCE * BATCH_WINDOW, 'the organisation never had more passes at once');
    // With nobody in it the line waits a while for the next batch before it ends.
    const line = temporal.env.client.workflow.getHandle(batchTurnsWorkflowId(org));
    assert.equal((await line.describe()).status.name, 'RUNNING');
  });

  it('a batch whose analyses cannot be read fails, marked for an operator, starting nothing', async () => {
    const batchId = `bat-refused-${randomBytes(4).toString('hex')}`;
    batches.set(batchId, 'refused');
    const handle = await startBatch(batchId);
    const err = await handle.result().then(
      () => assert.fail('the batch completed'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowFailedError, String(err));
    const started = (await handle.fetchHistory()).events!.filter(
      (e) => e.startChildWorkflowExecutionInitiatedEventAttributes,
    ).length;
    assert.equal(started, 0);
    assert.equal(await entityStatus(temporal.env, batchId), NEEDS_ATTENTION);
  });
});
