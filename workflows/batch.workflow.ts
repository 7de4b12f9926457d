import {
  ParentClosePolicy,
  condition,
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { batchStatus } from '../src/modules/analyses/batch-status.js';
import {
  BATCH_WINDOW,
  analysisWorkflowIdentity,
  batchDoneSignal,
  batchTurnSignal,
  batchTurnsWorkflowId,
  analysisWorkflowInput,
  batchProgressQuery,
  type AnalysisActivities,
  type BatchProgress,
  type BatchStatus,
  type BatchWorkflow,
  type BatchWorkflowInput,
  type AnalysisWorkflowResult,
} from '../src/temporal/contracts/analysis.js';
import { analysisWorkflow } from './analysis.workflow.js';
import { NEEDS_ATTENTION, SETTLING } from '../src/temporal/contracts/durable-steps.js';
import { SA } from '../src/temporal/contracts/search-attributes.js';

/**
 * The batch's one read: nothing starts without it and every image is paid for, so it gets the
 * settling budget (a day); past that the batch fails, marked for an operator to reset.
 */
const bookkeeping = proxyActivities<AnalysisActivities>(SETTLING);

/**
 * Since BATCH_WINDOW_PATCH the batch keeps at most BATCH_WINDOW children in flight and starts the next
 * as one finishes (D214): started all at once, each child's image fetch (a local activity in the
 * analyses worker, served in arrival order whatever the server's fairness) queued ahead of another
 * organisation's photo submitted meanwhile (D210). Now the rest of the batch waits in this workflow and
 * the window's children on the fair queues. Histories made before start every child at once.
 */
const BATCH_WINDOW_PATCH = 'batch-window';

/**
 * Since BATCH_TURNS_PATCH a batch runs its window only in its turn in its organisation's line (D240):
 * with the window alone, an organisation's 50 batches kept 400 of its analyses in flight (their fetches
 * and finalizes in the analyses worker's local-activity slots, served in arrival order) ahead of another
 * organisation's photo. Histories made before start their window at once.
 */
const BATCH_TURNS_PATCH = 'organisation-batch-turns';
/**
 * A batch that has waited this long without its turn asks its line again (harmless if it is in it):
 * a line ended or terminated meanwhile is started afresh with it.
 */
const ASK_AGAIN = '15 minutes';

/**
 * One batch (workflow id = batch id): one child AnalysisWorkflow per image, id = analysis id.
 * Children are abandoned, not cancelled, if the batch is cancelled or terminated: every image was paid for.
 */
export async function batchWorkflow(input: BatchWorkflowInput): Promise<BatchProgress> {
  let analyses;
  try {
    analyses = await bookkeeping.listBatchAnalyses({ batchId: input.batchId });
  } catch (err) {
    upsertSearchAttributes([{ key: SA.status, value: NEEDS_ATTENTION }]);
    throw err;
  }
  const progress: BatchProgress = { status: 'processing', total: analyses.length, completed: 0, failed: 0 };
  setHandler(batchProgressQuery, () => progress);

  const setStatus = (status: BatchStatus) => {
    if (progress.status !== status) {
      progress.status = status;
      upsertSearchAttributes([{ key: SA.status, value: status }]);
    }
  };

  const start = (a: (typeof analyses)[number]) =>
    startChild(analysisWorkflow, {
      ...analysisWorkflowIdentity(a, input.batchId),
      // The same input, key for key, as the hand-built one it replaced: the child's start command
      // is unchanged, so no patch marker is needed for histories recorded before.
      args: [analysisWorkflowInput(a, input.recognitionTaskQueue, input.heartbeatTimeoutMs)],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  const settle = async (result: Promise<AnalysisWorkflowResult>) => {
    // A child that failed outright (it could not even record its failure) counts as failed here;
    // it is marked needs_attention itself.
    const outcome = await result.catch((err: unknown) => {
      log.error('analysis workflow failed', { batchId: input.batchId, error: String(err) });
      return null;
    });
    if (outcome?.status === 'completed') progress.completed++;
    else progress.failed++;
    setStatus(batchStatus(progress.total, progress.completed + progress.failed));
  };

  // BATCH_WINDOW lanes, each taking the next analysis in list order when its child finishes: the
  // same order on replay, since a lane moves on only when the history says its child closed.
  const runWindow = async () => {
    let next = 0;
    const lane = async () => {
      while (next < analyses.length) {
        const child = await start(analyses[next++]!);
        await settle(child.result());
      }
    };
    await Promise.all(Array.from({ length: Math.min(BATCH_WINDOW, analyses.length) }, lane));
  };

  if (patched(BATCH_WINDOW_PATCH) && analyses.length > 0 && patched(BATCH_TURNS_PATCH)) {
    const { organisationId } = analyses[0]!;
    let myTurn = false;
    setHandler(batchTurnSignal, () => {
      myTurn = true;
    });
    do {
      try {
        await bookkeeping.queueBatchForTurn({ organisationId, batchId: input.batchId });
      } catch (err) {
        upsertSearchAttributes([{ key: SA.status, value: NEEDS_ATTENTION }]);
        throw err;
      }
    } while (!(await condition(() => myTurn, ASK_AGAIN)));
    try {
      await runWindow();
    } finally {
      // The turn goes back as soon as the last child has closed. A line gone meanwhile (terminated by
      // an operator) has nothing to give back to.
      await getExternalWorkflowHandle(batchTurnsWorkflowId(organisationId))
        .signal(batchDoneSignal, { batchId: input.batchId })
        .catch((err: unknown) => log.warn('batch turn not given back', { batchId: input.batchId, error: String(err) }));
    }
  } else if (patched(BATCH_WINDOW_PATCH)) {
    await runWindow();
  } else {
    const children = await Promise.all(analyses.map(start));
    await Promise.all(children.map((child) => settle(child.result())));
  }
  await condition(() => progress.completed + progress.failed === progress.total);
  return progress;
}

batchWorkflow satisfies BatchWorkflow;
