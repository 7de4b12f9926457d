import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, ConflictError, NotFoundError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { CreditService } from '../credits/credit.service.js';
import type { AnalysisCommands } from './analysis-commands.js';
import { AnalysisRetryService, type RetryCandidate, type RetrySelection } from './analysis-retry.service.js';
import { Organisation } from '../organisations/organisation.entity.js';
import type { OrganisationRepository } from '../organisations/organisation.repository.js';
import { Analysis } from './analysis.entity.js';
import type { AnalysisRepository } from './analysis.repository.js';
import { startAfterCommit } from '../../temporal/start-once.js';

export type RetryItem = RetryCandidate & {
  /** `would_retry` in a dry run; `retried` once reset (and started, see `started`); `refused` with a reason. */
  outcome: 'would_retry' | 'retried' | 'refused';
  /** False when Temporal could not be reached: the worker's relay starts it. */
  started?: boolean;
  reason?: string;
};

export type RetryReport = {
  dryRun: boolean;
  /** Credits the selection takes (one per analysis whose last charge was refunded). */
  creditsNeeded: number;
  creditsRemaining: number;
  analyses: RetryItem[];
};

/**
 * Operators' re-runs of failed analyses as new runs of their workflows (workflow id = analysis id),
 * for the CLI's analyses:retry: a dry run that changes nothing, or each analysis reset with its
 * charge in its own transaction and then started.
 */
export class AnalysisRetryCommands {
  private readonly retries: AnalysisRetryService;

  constructor(
    private readonly em: EntityManager,
    private readonly credits: CreditService,
    private readonly analyses: AnalysisCommands,
    private readonly logger: Logger,
  ) {
    this.retries = new AnalysisRetryService(em, credits);
  }

  async retry(organisationId: string, selection: RetrySelection, opts: { dryRun: boolean }): Promise<RetryReport> {
    if (!(await this.em.getRepository<Organisation, OrganisationRepository>(Organisation).exists(organisationId)))
      throw new NotFoundError('organisation', organisationId);
    const candidates = await this.retries.candidates(organisationId, selection);
    const one = candidates[0];
    if ('id' in selection && one && one.status !== 'failed')
      throw new ConflictError(`${one.analysisId} is ${one.status}: only failed analyses are retried.`);
    const creditsNeeded = candidates.filter((c) => c.charge).length;
    const { remaining } = await this.credits.balance(organisationId);
    const report = (analyses: RetryItem[], creditsRemaining: number): RetryReport => ({
      dryRun: opts.dryRun,
      creditsNeeded,
      creditsRemaining,
      analyses,
    });
    if (opts.dryRun)
      return report(
        candidates.map((c) => ({ ...c, outcome: 'would_retry' })),
        remaining,
      );
    // All or nothing on credits up front: half a selection retried is harder to reason about.
    if (creditsNeeded > remaining)
      throw new ConflictError(
        `Retrying ${candidates.length} analyses needs ${creditsNeeded} credit(s); ${organisationId} has ${remaining}. Nothing was retried.`,
      );

    const items: RetryItem[] = [];
    for (const c of candidates) {
      let reset;
      try {
        reset = await this.retries.reset(organisationId, c.analysisId);
      } catch (err) {
        // Changed since it was selected (retried by someone else, credits spent meanwhile).
        if (!(err instanceof AppError)) throw err;
        items.push({ ...c, outcome: 'refused', reason: err.message });
        continue;
      }
      // The row is committed with workflow_started_at null: if this fails, the worker's relay starts it.
      const started = await startAfterCommit(this.logger, 'retry start', { analysisId: c.analysisId }, async () => {
        await this.analyses.startAnalysis(reset.analysis);
        await this.em.getRepository<Analysis, AnalysisRepository>(Analysis).markWorkflowStarted(c.analysisId);
      });
      items.push({ ...c, charge: reset.charged, outcome: 'retried', started });
    }
    return report(items, (await this.credits.balance(organisationId)).remaining);
  }
}
