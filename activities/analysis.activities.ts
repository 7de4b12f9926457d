import { ApplicationFailure, log, Context } from '@temporalio/activity';
import type { Config } from '../src/config.js';
import { ImageError, type ImageFetchOptions } from '../src/modules/analyses/image-fetcher.js';
import { RecognitionRejectedError, type Recognizer } from '../src/modules/recognition/recognizer.js';
import type { Services } from '../src/services.js';
import type { Commands } from '../src/commands.js';
import type { AnalysisActivities } from '../src/temporal/contracts/analysis.js';

/** Below this, what is left of the fetch's time is not worth another request: the fetch fails. */
const MIN_FETCH_ATTEMPT_MS = 250;

export type AnalysisActivityDeps = {
  services: Services;
  /** The batch line's start and signal (queueBatchForTurn). */
  commands: Pick<Commands, 'analyses'>;
  config: Config;
  recognizer: () => Promise<Recognizer>;
};

/** An image's refusal as the workflow takes it (its code as the failure's type); anything else as it is. */
function imageFailure(analysisId: string, err: unknown): unknown {
  if (!(err instanceof ImageError)) return err;
  // The client sees the public message; what exactly happened (addresses, resolver and socket errors) is logged here only.
  if (err.detail) log.warn('image fetch failed', { analysisId, code: err.code, detail: err.detail });
  return ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: !err.retryable });
}

/** Activities of the analysis workflows: each calls one service (in its own MikroORM context, index.ts). */
export function createAnalysisActivities({
  services,
  commands,
  config,
  recognizer,
}: AnalysisActivityDeps): AnalysisActivities {
  /** How a photo is fetched; `timeoutMs` what is left of the fetch's time on a retried attempt. */
  async function fetchOptions(timeoutMs?: number): Promise<ImageFetchOptions> {
    // A recognizer that decodes every photo in full refuses one that does not decode, with this
    // fetch's code and message: the fetch does not decode it a second time (D282). One that could not
    // be made leaves the decode here (its own failure is recognition's to report, as before).
    const decodedByRecognizer = await recognizer().then(
      (r) => r.decodesEveryPhoto === true,
      () => false,
    );
    return {
      decodeInFull: !decodedByRecognizer,
      maxBytes: config.IMAGE_MAX_BYTES,
      timeoutMs: timeoutMs ?? config.IMAGE_FETCH_TIMEOUT_MS,
      allowPrivate: config.ALLOW_PRIVATE_NETWORK_FETCH,
      maxPixels: config.IMAGE_MAX_PIXELS,
    };
  }

  return {
    async fetchImage({ analysisId, previewLater }) {
      // IMAGE_FETCH_TIMEOUT_MS is the fetch's time, its retries included: each attempt gets what is
      // left since the first was scheduled. A host that trickles its body, or never ends it, used to
      // get the whole time again on every one of the four attempts.
      const { attempt, scheduledTimestampMs } = Context.current().info;
      const left = config.IMAGE_FETCH_TIMEOUT_MS - (Date.now() - scheduledTimestampMs);
      if (attempt > 1 && left < MIN_FETCH_ATTEMPT_MS)
        throw ApplicationFailure.create({
          type: 'IMAGE_UNREACHABLE',
          message: 'The image host did not answer in time.',
          nonRetryable: true,
        });
      try {
        return await services.analysisProcessing.prepareImage(analysisId, {
          ...(await fetchOptions(attempt > 1 ? Math.min(left, config.IMAGE_FETCH_TIMEOUT_MS) : undefined)),
          previewLater,
        });
      } catch (err) {
        throw imageFailure(analysisId, err);
      }
    },

    async recognizeImage({ analysisId, runIndex }) {
      const ctx = Context.current();
      // A killed worker is noticed within the heartbeat timeout (RECOGNITION_HEARTBEAT_TIMEOUT_MS) and the
      // pass is retried elsewhere; beating at a quarter of it survives a late beat or two.
      const every = Math.max(250, Math.min(5_000, (ctx.info.heartbeatTimeoutMs ?? 20_000) / 4));
      const heartbeat = setInterval(() => ctx.heartbeat(), every);
      try {
        return await services.analysisProcessing.recognize(analysisId, runIndex, await recognizer(), {
          signal: ctx.cancellationSignal,
          // Where no copy of the photo was stored (its fetching worker died before the write beside
          // recognition committed, D335), the pass fetches it again, with a fetch's own time and refusals.
          refetch: await fetchOptions(),
        });
      } catch (err) {
        if (err instanceof RecognitionRejectedError) {
          throw ApplicationFailure.create({
            // The image's own code where it is the reason (the analysis fails with it, refunded).
            type: err.code ?? 'RecognitionRejectedError',
            message: err.message,
            nonRetryable: true,
          });
        }
        // A photo fetched again for the pass and refused: the fetch's own failure.
        throw imageFailure(analysisId, err);
      } finally {
        clearInterval(heartbeat);
      }
    },

    async finalizeAnalysis({ analysisId, failedPasses, keepImage }) {
      return services.analysisProcessing.finalize(analysisId, failedPasses, { keepImage });
    },

    async failAnalysis({ analysisId, code, message, keepImage }) {
      return services.analysisProcessing.fail(analysisId, code, message, { keepImage });
    },

    async storePreview({ analysisId }) {
      await services.analysisProcessing.storePreview(analysisId);
    },

    async listBatchAnalyses({ batchId }) {
      return services.analyses.batchMembers(batchId);
    },

    async queueBatchForTurn({ organisationId, batchId }) {
      await commands.analyses.queueBatchForTurn(organisationId, batchId);
    },
  };
}
