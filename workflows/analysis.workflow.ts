import {
  ActivityFailure,
  ApplicationFailure,
  defineQuery,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  log,
} from '@temporalio/workflow';
import type { AnalysisActivities } from '../activities/analysis.activities.js';
import type { DeliveryActivities } from '../activities/delivery.activities.js';
import { SA } from './shared/search-attributes.js';
import { analysisFinishedSignal, analysisSubmittedSignal } from './task.workflow.js';

export type AnalysisWorkflowInput = { analysisId: string; recognitionTaskQueue: string; taskId?: string | null };

export type AnalysisWorkflowResult = {
  analysisId: string;
  status: 'completed' | 'failed';
  productCount: number;
  errorCode: string | null;
};

export type AnalysisProgress = { stage: 'fetching' | 'recognizing' | 'finalizing' | 'done'; passesDone: number; passesFailed: number };

export const analysisProgressQuery = defineQuery<AnalysisProgress>('analysisProgress');

/** Fetch: a flaky host gets a few tries; a definite answer (404, not an image, private address) none. */
const fetching = proxyActivities<AnalysisActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 4 },
});

/** Bookkeeping against our own database: retried until it succeeds. */
const bookkeeping = proxyActivities<AnalysisActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** Fan-out to webhooks and the callback URL; deliveries then run as their own workflows. */
const dispatching = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

const IMAGE_CODES = new Set(['IMAGE_UNREACHABLE', 'IMAGE_HTTP_ERROR', 'IMAGE_NOT_AN_IMAGE', 'IMAGE_TOO_LARGE', 'IMAGE_ADDRESS_BLOCKED']);

function failureCode(err: unknown): { code: string; message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type && IMAGE_CODES.has(cause.type)) return { code: cause.type, message: cause.message };
  return { code: 'IMAGE_UNREACHABLE', message: cause instanceof Error ? cause.message : 'The image could not be fetched.' };
}

/**
 * One analysis (workflow id = analysis id): fetch the image, run `totalRuns` independent
 * recognition passes on the recognition queue, then finalize (merge, match, persist, event) or
 * fail with a refund. Image bytes stay in the database; only ids and counts pass through here.
 */
export async function analysisWorkflow(input: AnalysisWorkflowInput): Promise<AnalysisWorkflowResult> {
  const { analysisId } = input;
  const progress: AnalysisProgress = { stage: 'fetching', passesDone: 0, passesFailed: 0 };
  setHandler(analysisProgressQuery, () => progress);

  const recognition = proxyActivities<AnalysisActivities>({
    taskQueue: input.recognitionTaskQueue,
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '20 seconds',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3, nonRetryableErrorTypes: ['RecognitionRejectedError'] },
  });

  // The task this photo fulfils moves along by signal; a task whose workflow has ended ignores it.
  const task = input.taskId ? getExternalWorkflowHandle(input.taskId) : null;
  const tell = async (fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      log.info('task workflow not reachable', { taskId: input.taskId, error: String(err) });
    }
  };
  if (task) await tell(() => task.signal(analysisSubmittedSignal, { analysisId }));

  let outcome;
  try {
    const prepared = await fetching.fetchImage({ analysisId });
    if ('alreadyFinal' in prepared) {
      outcome = await bookkeeping.finalizeAnalysis({ analysisId, failedPasses: [] });
    } else {
      progress.stage = 'recognizing';
      const passes = Array.from({ length: prepared.totalRuns }, (_, runIndex) =>
        recognition.recognizeImage({ analysisId, runIndex }).then(
          () => {
            progress.passesDone++;
            return null;
          },
          (err: unknown) => {
            progress.passesFailed++;
            const cause = err instanceof ActivityFailure ? err.cause : err;
            return { runIndex, message: cause instanceof Error ? cause.message : String(cause) };
          },
        ),
      );
      const failedPasses = (await Promise.all(passes)).filter((f): f is { runIndex: number; message: string } => f !== null);
      progress.stage = 'finalizing';
      outcome = await bookkeeping.finalizeAnalysis({ analysisId, failedPasses });
    }
  } catch (err) {
    const { code, message } = failureCode(err);
    log.info('image could not be used', { analysisId, code });
    progress.stage = 'finalizing';
    outcome = await bookkeeping.failAnalysis({ analysisId, code, message });
  }

  if (outcome.eventIds.length > 0) await dispatching.dispatchEvents({ eventIds: outcome.eventIds });
  if (task) await tell(() => task.signal(analysisFinishedSignal, { analysisId, status: outcome.status }));
  upsertSearchAttributes([{ key: SA.status, value: outcome.status }]);
  progress.stage = 'done';
  return { analysisId, status: outcome.status, productCount: outcome.productCount, errorCode: outcome.errorCode };
}
