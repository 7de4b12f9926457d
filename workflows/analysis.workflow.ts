import {
  ActivityFailure,
  ApplicationFailure,
  getExternalWorkflowHandle,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  log,
  patched,
} from '@temporalio/workflow';
import {
  analysisProgressQuery,
  type AnalysisActivities,
  type AnalysisProgress,
  type AnalysisWorkflow,
  type AnalysisWorkflowInput,
  type AnalysisWorkflowResult,
  type FailedPass,
} from '../src/temporal/contracts/analysis.js';
import type { DeliveryActivities } from '../src/temporal/contracts/delivery.js';
import { IMAGE_ERROR_CODES } from '../src/temporal/contracts/image-errors.js';
import {
  analysisFinishedSignal,
  analysisSubmittedSignal,
  type TaskActivities,
} from '../src/temporal/contracts/task.js';
import {
  BOOKKEEPING,
  BOOKKEEPING_LOCAL,
  DATABASE_REFUSED,
  NEEDS_ATTENTION,
  SETTLING,
} from '../src/temporal/contracts/durable-steps.js';
import { SA } from '../src/temporal/contracts/search-attributes.js';

/** Fetch: a flaky host gets a few tries; a definite answer (404, not an image, private address) none. */
const FETCHING = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 4 },
} as const;
const fetching = proxyActivities<AnalysisActivities>(FETCHING);
/**
 * The same, run in the worker that runs this workflow: an ordinary activity costs a task round trip
 * through the server and a workflow task after it, on the path every client waits on, and a fetch is
 * only one HTTP request and one INSERT (the measurement: docs/decisions.md, "The image fetch is a local
 * activity"; docs/history/code-comments.md). Retried in place with
 * the same backoff; a fetch longer than the workflow task timeout keeps its task alive (the SDK
 * heartbeats it), and a worker lost mid-fetch has the task, and the idempotent fetch, run again elsewhere.
 */
const fetchingLocal = proxyLocalActivities<AnalysisActivities>(FETCHING);
/** Histories made before the local fetch replay with the activity they recorded. */
const LOCAL_FETCH = 'local-fetch';

/** Bookkeeping against our own database: a refusal ends it at once, an outage after 30 minutes (durable-steps.ts). */
const bookkeeping = proxyActivities<AnalysisActivities>(BOOKKEEPING);

/** The same, run in the worker that runs this workflow (durable-steps.ts): the steps a client waits on. */
const bookkeepingLocal = proxyLocalActivities<AnalysisActivities>(BOOKKEEPING_LOCAL);
const dispatchingLocal = proxyLocalActivities<DeliveryActivities>(BOOKKEEPING_LOCAL);

/** Histories made before local finalize/dispatch replay with the activities they recorded. */
const LOCAL_TAIL = 'local-finalize-and-dispatch';

/**
 * The console's preview of the photo is made after the result is out (storePreview), not in the fetch a
 * client waits on. Histories made before keep the preview in the fetch and the photo's deletion in finalize.
 */
const PREVIEW_AFTER_RESULT = 'preview-after-result';

/**
 * The first attempt of each of the analysis' deliveries made here (deliverEvents), not by a delivery
 * workflow started for it: its start and first task stood between the result and its webhook. A
 * delivery workflow is started only for a delivery that attempt did not finish, so retries stay
 * durable timers (D273). Histories made before dispatch and start a workflow per delivery.
 */
const FIRST_DELIVERY_HERE = 'first-delivery-in-analysis';

/**
 * The console's preview waits for the deliveries' first attempts: made beside them, its decode and
 * encode (libvips on every core, 20–60 ms of CPU a real photo) took the cores the fan-out and the POST
 * the client waits for needed (D294). Histories made before make it beside the attempts.
 */
const PREVIEW_AFTER_DELIVERIES = 'preview-after-deliveries';

/**
 * Every change above, taken behind this one marker (D372): the SDK records each `patched()` id a
 * run takes as a marker event and an upsert of `TemporalChangeVersion` (a history event and a
 * visibility write on the server), so the five ids cost ten of an analysis' 26 events, on the path
 * a client waits on (18 with one). Histories made before it ask for the five, where and as they
 * did. A change to come gets its own id, asked after this one.
 */
const STEPS_2026_11 = 'analysis-steps-2026-11';

/** Failing the analysis (status, refund, event): the step after which there is no other, so it gets a day. */
const settling = proxyActivities<AnalysisActivities>(SETTLING);

/** Fan-out to webhooks and the callback URL, starting a workflow per delivery (histories before FIRST_DELIVERY_HERE, and its fallback). */
const dispatching = proxyActivities<DeliveryActivities>(BOOKKEEPING);

/** Recording a finished analysis on a task whose own workflow has ended (a final task). */
const taskBookkeeping = proxyActivities<TaskActivities>(BOOKKEEPING);

const IMAGE_CODES = new Set<string>(IMAGE_ERROR_CODES);

function failureCode(err: unknown, stage: AnalysisProgress['stage']): { code: string; message: string } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type && IMAGE_CODES.has(cause.type))
    return { code: cause.type, message: cause.message };
  // The database refused what the analysis found: asking again gives the same answer.
  if (cause instanceof ApplicationFailure && cause.type === DATABASE_REFUSED)
    return { code: 'RESULT_NOT_STORABLE', message: `The result could not be stored. ${cause.message}` };
  if (stage === 'fetching')
    return {
      code: 'IMAGE_UNREACHABLE',
      message: cause instanceof Error ? cause.message : 'The image could not be fetched.',
    };
  // Retries ran out (the database was unreachable for their whole budget). The last attempt's
  // error is not quoted: a driver error carries the statement and its values.
  return {
    code: 'PROCESSING_FAILED',
    message:
      'The result could not be recorded: our database did not answer in time. The credit was refunded; submit the image again.',
  };
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

  // Six attempts, 2 s to 30 s apart: attempts lost to our own trouble (a killed worker, or a Temporal
  // server that cannot record heartbeats while it restarts) must not fail the photo. Three, 2 and 4 s
  // apart, were used up by one restart of the server under load (the soak, seed 20261123); six
  // outlast a minute of it plus six heartbeat timeouts, and still end a photo that can never pass.
  const recognition = proxyActivities<AnalysisActivities>({
    taskQueue: input.recognitionTaskQueue,
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: input.heartbeatTimeoutMs ?? 20_000,
    retry: {
      initialInterval: '2 seconds',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: 6,
      nonRetryableErrorTypes: ['RecognitionRejectedError'],
    },
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
  // Asked where the first of the five was, so a history made before replays its own markers.
  const current = patched(STEPS_2026_11);
  const taken = (patch: string) => current || patched(patch);
  const previewLater = taken(PREVIEW_AFTER_RESULT);
  const keep = previewLater ? { keepImage: true } : {};

  let outcome;
  try {
    const prepared = await (taken(LOCAL_FETCH) ? fetchingLocal : fetching).fetchImage({
      analysisId,
      ...(previewLater ? { previewLater } : {}),
    });
    if ('alreadyFinal' in prepared) {
      progress.stage = 'finalizing';
      outcome = await bookkeeping.finalizeAnalysis({ analysisId, failedPasses: [], ...keep });
    } else {
      progress.stage = 'recognizing';
      let imageFailure: unknown;
      const passes = Array.from({ length: prepared.totalRuns }, (_, runIndex) =>
        recognition.recognizeImage({ analysisId, runIndex }).then(
          () => {
            progress.passesDone++;
            return null;
          },
          (err: unknown) => {
            progress.passesFailed++;
            const cause = err instanceof ActivityFailure ? err.cause : err;
            // The image itself is the reason (IMAGE_TOO_COMPLEX: it overran the recognition deadline).
            if (cause instanceof ApplicationFailure && cause.type && IMAGE_CODES.has(cause.type)) imageFailure = err;
            return { runIndex, message: cause instanceof Error ? cause.message : String(cause) };
          },
        ),
      );
      const failedPasses = (await Promise.all(passes)).filter((f): f is FailedPass => f !== null);
      // No pass read it, and the image is why: the analysis fails with the image's code (refunded),
      // not RECOGNITION_FAILED. (No history before this code had a pass fail with an image code.)
      if (imageFailure && failedPasses.length === prepared.totalRuns) throw imageFailure;
      progress.stage = 'finalizing';
      outcome = await (taken(LOCAL_TAIL) ? bookkeepingLocal : bookkeeping).finalizeAnalysis({
        analysisId,
        failedPasses,
        ...keep,
      });
    }
  } catch (err) {
    const { code, message } = failureCode(err, progress.stage);
    log.info('analysis failed', { analysisId, code });
    progress.stage = 'finalizing';
    try {
      outcome = await settling.failAnalysis({ analysisId, code, message, ...keep });
    } catch (settleErr) {
      // Even failing it could not be recorded: the analysis is still processing and its credit not
      // refunded. The workflow fails, marked for an operator to reset once the database is back.
      log.error('analysis could not be failed', { analysisId, code, error: String(settleErr) });
      upsertSearchAttributes([{ key: SA.status, value: NEEDS_ATTENTION }]);
      throw settleErr;
    }
  }

  let delivering: Promise<void> | undefined;
  let deliveriesStranded = false;
  let statusSet = false;
  if (outcome.eventIds.length > 0 && taken(FIRST_DELIVERY_HERE)) {
    const eventIds = outcome.eventIds;
    // Not awaited here: the task's signal and the preview go on while a receiver answers.
    delivering = dispatchingLocal.deliverEvents({ eventIds }).then(
      () => undefined,
      async (err: unknown) => {
        // The events are marked dispatched once their deliveries exist: the relay no longer has them.
        // Every delivery not finished gets its workflow (one already finished ends at once).
        log.warn('first delivery attempts failed; starting the delivery workflows', { analysisId, error: String(err) });
        await dispatching.dispatchEvents({ eventIds }).catch((e: unknown) => {
          log.error('deliveries not started', { analysisId, error: String(e) });
          deliveriesStranded = true;
        });
      },
    );
  } else if (outcome.eventIds.length > 0) {
    try {
      await (taken(LOCAL_TAIL) ? dispatchingLocal : dispatching).dispatchEvents({ eventIds: outcome.eventIds });
    } catch (err) {
      // The events are committed with dispatched_at null: the worker's relay dispatches them.
      log.warn('event dispatch left to the relay', { analysisId, error: String(err) });
    }
  }
  if (task) {
    try {
      await task.signal(analysisFinishedSignal, { analysisId, status: outcome.status });
    } catch (err) {
      // The task's workflow has ended: the task is already final (or deleted). decisions.md: the task
      // still records the analysis and its score, without a change of status; done here directly.
      log.info('task workflow not reachable', { taskId: input.taskId, error: String(err) });
      if (outcome.status === 'completed' && taken('record-analysis-on-final-task')) {
        await taskBookkeeping.completeTaskFromAnalysis({ taskId: input.taskId!, analysisId }).catch((e: unknown) => {
          log.warn('analysis not recorded on the final task', { taskId: input.taskId, error: String(e) });
        });
      }
    }
  }
  if (previewLater && delivering && taken(PREVIEW_AFTER_DELIVERIES)) {
    // The status is searchable before the workflow waits for a receiver (as beside them, D273).
    upsertSearchAttributes([{ key: SA.status, value: outcome.status }]);
    statusSet = true;
    await delivering;
    delivering = undefined;
  }
  if (previewLater) {
    try {
      await bookkeepingLocal.storePreview({ analysisId });
    } catch (err) {
      // The result is out either way; the worker's housekeeping deletes the stored photo within the hour.
      log.warn('preview not stored', { analysisId, error: String(err) });
    }
  }
  if (!statusSet) upsertSearchAttributes([{ key: SA.status, value: outcome.status }]);
  if (delivering) await delivering;
  // Marked after the status, which it would otherwise be overwritten by: an operator's to look at.
  if (deliveriesStranded) upsertSearchAttributes([{ key: SA.status, value: NEEDS_ATTENTION }]);
  progress.stage = 'done';
  return { analysisId, status: outcome.status, productCount: outcome.productCount, errorCode: outcome.errorCode };
}

analysisWorkflow satisfies AnalysisWorkflow;
