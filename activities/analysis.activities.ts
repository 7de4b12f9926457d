import { ApplicationFailure, log, Context } from '@temporalio/activity';
import type { Config } from '../src/config.js';
import type { Orm } from '../src/db/orm.js';
import { Analysis } from '../src/modules/analyses/analysis.entity.js';
import type { AnalysisOutcome } from '../src/modules/analyses/analysis-processing.service.js';
import { ImageError } from '../src/modules/analyses/image-fetcher.js';
import { RecognitionRejectedError, type Recognizer } from '../src/modules/recognition/recognizer.js';
import { createServices } from '../src/services.js';

export type AnalysisActivityDeps = { orm: Orm; config: Config; recognizer: () => Promise<Recognizer> };

export type BatchMember = { id: string; organisationId: string; imageUrl: string; externalId: string | null; placeId: string | null; taskId: string | null };

/** Activities of the analysis workflows. Each forks its own entity manager and calls one service. */
export function createAnalysisActivities({ orm, config, recognizer }: AnalysisActivityDeps) {
  const services = () => createServices(orm.em.fork());

  return {
    async fetchImage({ analysisId }: { analysisId: string }) {
      try {
        return await services().analysisProcessing.prepareImage(analysisId, {
          maxBytes: config.IMAGE_MAX_BYTES,
          timeoutMs: config.IMAGE_FETCH_TIMEOUT_MS,
          allowPrivate: config.ALLOW_PRIVATE_NETWORK_FETCH,
          maxPixels: config.IMAGE_MAX_PIXELS,
        });
      } catch (err) {
        if (err instanceof ImageError) {
          // The client sees the public message; what exactly happened (addresses, resolver and socket errors) is logged here only.
          if (err.detail) log.warn('image fetch failed', { analysisId, code: err.code, detail: err.detail });
          throw ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: !err.retryable });
        }
        throw err;
      }
    },

    async recognizeImage({ analysisId, runIndex }: { analysisId: string; runIndex: number }) {
      const ctx = Context.current();
      // A killed worker is noticed within the workflow's 20 s heartbeat timeout and the pass is retried elsewhere.
      const heartbeat = setInterval(() => ctx.heartbeat(), 5_000);
      try {
        return await services().analysisProcessing.recognize(analysisId, runIndex, await recognizer(), ctx.cancellationSignal);
      } catch (err) {
        if (err instanceof RecognitionRejectedError) {
          throw ApplicationFailure.create({ type: 'RecognitionRejectedError', message: err.message, nonRetryable: true });
        }
        throw err;
      } finally {
        clearInterval(heartbeat);
      }
    },

    async finalizeAnalysis({ analysisId, failedPasses }: { analysisId: string; failedPasses: { runIndex: number; message: string }[] }): Promise<AnalysisOutcome> {
      return services().analysisProcessing.finalize(analysisId, failedPasses);
    },

    async failAnalysis({ analysisId, code, message }: { analysisId: string; code: string; message: string }): Promise<AnalysisOutcome> {
      return services().analysisProcessing.fail(analysisId, code, message);
    },

    async listBatchAnalyses({ batchId }: { batchId: string }): Promise<BatchMember[]> {
      const rows = await orm.em.fork().find(Analysis, { batchId }, { orderBy: { id: 'asc' } });
      return rows.map((a) => ({
        id: a.id,
        organisationId: a.organisationId,
        imageUrl: a.imageUrl,
        externalId: a.externalId ?? null,
        placeId: a.placeId ?? null,
        taskId: a.taskId ?? null,
      }));
    },
  };
}

export type AnalysisActivities = ReturnType<typeof createAnalysisActivities>;
