import { ParentClosePolicy, condition, defineQuery, proxyActivities, setHandler, startChild, upsertSearchAttributes } from '@temporalio/workflow';
import type { AnalysisActivities } from '../activities/analysis.activities.js';
import { analysisWorkflow } from './analysis.workflow.js';
import { SA } from './shared/search-attributes.js';

export type BatchWorkflowInput = { batchId: string; recognitionTaskQueue: string };
export type BatchStatus = 'processing' | 'partial' | 'completed';
export type BatchProgress = { status: BatchStatus; total: number; completed: number; failed: number };

export const batchProgressQuery = defineQuery<BatchProgress>('batchProgress');

const bookkeeping = proxyActivities<AnalysisActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * One batch (workflow id = batch id): one child AnalysisWorkflow per image, id = analysis id.
 * Children are abandoned, not cancelled, if the batch is cancelled or terminated: every image was paid for.
 */
export async function batchWorkflow(input: BatchWorkflowInput): Promise<BatchProgress> {
  const analyses = await bookkeeping.listBatchAnalyses({ batchId: input.batchId });
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
        workflowId: a.id,
        args: [{ analysisId: a.id, recognitionTaskQueue: input.recognitionTaskQueue, taskId: a.taskId }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        memo: { imageUrl: a.imageUrl },
        typedSearchAttributes: [
          { key: SA.organisationId, value: a.organisationId },
          { key: SA.analysisId, value: a.id },
          { key: SA.batchId, value: input.batchId },
          { key: SA.status, value: 'processing' },
          ...(a.externalId ? [{ key: SA.externalId, value: a.externalId }] : []),
          ...(a.placeId ? [{ key: SA.placeId, value: a.placeId }] : []),
          ...(a.taskId ? [{ key: SA.taskId, value: a.taskId }] : []),
        ],
      }),
    ),
  );

  await Promise.all(
    children.map(async (child) => {
      const result = await child.result();
      if (result.status === 'completed') progress.completed++;
      else progress.failed++;
      setStatus(progress.completed + progress.failed === progress.total ? 'completed' : 'partial');
    }),
  );
  await condition(() => progress.completed + progress.failed === progress.total);
  return progress;
}
