import {
  ParentClosePolicy,
  condition,
  log,
  proxyActivities,
  setHandler,
  startChild,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { batchStatus } from '../src/modules/analyses/batch-status.js';
import {
  analysisWorkflowIdentity,
  analysisWorkflowInput,
  batchProgressQuery,
  type AnalysisActivities,
  type BatchProgress,
  type BatchStatus,
  type BatchWorkflow,
  type BatchWorkflowInput,
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

  const children = await Promise.all(
    analyses.map((a) =>
      startChild(analysisWorkflow, {
        ...analysisWorkflowIdentity(a, input.batchId),
        // The same input, key for key, as the hand-built one it replaced: the child's start command
        // is unchanged, so no patch marker is needed for histories recorded before.
        args: [analysisWorkflowInput(a, input.recognitionTaskQueue, input.heartbeatTimeoutMs)],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    ),
  );

  await Promise.all(
    children.map(async (child) => {
      // A child that failed outright (it could not even record its failure) counts as failed here;
      // it is marked needs_attention itself.
      const result = await child.result().catch((err: unknown) => {
        log.error('analysis workflow failed', { batchId: input.batchId, error: String(err) });
        return null;
      });
      if (result?.status === 'completed') progress.completed++;
      else progress.failed++;
      setStatus(batchStatus(progress.total, progress.completed + progress.failed));
    }),
  );
  await condition(() => progress.completed + progress.failed === progress.total);
  return progress;
}

batchWorkflow satisfies BatchWorkflow;
