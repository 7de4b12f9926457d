import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, InsufficientCreditsError, NotFoundError } from '../../lib/errors.js';
import type { CreditService } from '../credits/credit.service.js';
import { Product } from '../products/product.entity.js';
import { AnalysisRun } from './analysis-run.entity.js';
import { Analysis } from './analysis.entity.js';
import type { AnalysisRepository } from './analysis.repository.js';

export type RetrySelection = { id: string } | { status: 'failed'; since: Date };

/** One analysis an operator asked to re-run, and what re-running it would do. */
export type RetryCandidate = {
  analysisId: string;
  status: Analysis['status'];
  errorCode: string | null;
  /** The number this retry would take (1 for the first). */
  retry: number;
  /** True when its last charge was refunded, so the retry takes a credit again. */
  charge: boolean;
};

/**
 * Operators' re-runs of failed analyses (CLI analyses:retry): which analyses a selection means, and
 * the reset of one, in one transaction with its charge. The workflow start is AnalysisRetryCommands'.
 */
export class AnalysisRetryService {
  constructor(
    private readonly em: EntityManager,
    private readonly credits: CreditService,
  ) {}

  /**
   * The analyses a selection means, oldest first: one by id (whatever its status, so the caller can
   * say why it cannot be retried), or the organisation's failed ones that failed at or after `since`.
   */
  async candidates(organisationId: string, selection: RetrySelection): Promise<RetryCandidate[]> {
    const rows = await this.em
      .getRepository<Analysis, AnalysisRepository>(Analysis)
      .retryCandidates(organisationId, selection);
    if ('id' in selection && rows.length === 0) throw new NotFoundError('analysis', selection.id);
    return rows.map((r) => ({
      analysisId: r.id,
      status: r.status,
      errorCode: r.error_code,
      retry: r.retries + 1,
      charge: r.refunded,
    }));
  }

  /**
   * Puts a failed analysis back to `processing` as retry number n: error and counters cleared, any
   * earlier passes and products removed, and, if its last charge was refunded, one credit taken
   * again (ledger row (analysis, 'analysis', n)). All in one transaction under the analysis' row
   * lock: a crash leaves either nothing done or all of it, and a second call finds it no longer
   * failed. The caller then starts the run (the relay does, should the caller die first).
   */
  async reset(organisationId: string, analysisId: string): Promise<{ analysis: Analysis; charged: boolean }> {
    return this.em.transactional(async (em) => {
      const analysis = await em.findOne(
        Analysis,
        { id: analysisId, organisationId },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!analysis) throw new NotFoundError('analysis', analysisId);
      if (analysis.status !== 'failed')
        throw new ConflictError(`${analysisId} is ${analysis.status}: only failed analyses are retried.`);
      const [candidate] = await new AnalysisRetryService(em, this.credits).candidates(organisationId, {
        id: analysisId,
      });
      const retry = analysis.retries + 1;
      if (candidate!.charge) {
        try {
          await this.credits.consume(em, organisationId, [analysisId], retry);
        } catch (err) {
          if (err instanceof InsufficientCreditsError)
            throw new ConflictError(`${organisationId} has no credit left for retrying ${analysisId}.`);
          throw err;
        }
      }
      await em.nativeDelete(AnalysisRun, { analysisId });
      await em.nativeDelete(Product, { analysisId });
      Object.assign(analysis, {
        status: 'processing',
        retries: retry,
        completedRuns: 0,
        failedRuns: 0,
        productCount: 0,
        totalUnits: 0,
        totalValue: '0.00',
        errorCode: null,
        errorMessage: null,
        completedAt: null,
        workflowStartedAt: null,
      } satisfies Partial<Analysis>);
      await em.flush();
      return { analysis, charged: candidate!.charge };
    });
  }
}
