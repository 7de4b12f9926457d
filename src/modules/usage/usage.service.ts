import type { EntityManager } from '@mikro-orm/postgresql';
import { idAt } from '../../lib/ids.js';
import type { CreditService } from '../credits/credit.service.js';
import { Organisation } from '../organisations/organisation.entity.js';
import { limitsFor, type RateLimitCategory } from '../organisations/plans.js';
import type { RateLimiter } from '../rate-limits/rate-limiter.js';
import { Analysis } from '../analyses/analysis.entity.js';
import type { AnalysisRepository } from '../analyses/analysis.repository.js';

export class UsageService {
  constructor(
    private readonly em: EntityManager,
    private readonly credits: CreditService,
    private readonly limiter: RateLimiter,
  ) {}

  /** decisions.md's usage shape: batch size, credits by pool, plan, and live rate-limit windows of this key. */
  async usage(organisationId: string, actorId: string) {
    const org = await this.em.findOneOrFail(Organisation, { id: organisationId });
    const limits = limitsFor(org.plan, org.customLimits);
    const balance = await this.credits.balance(organisationId);
    const { periodStart, periodEnd } = org;
    // Charges of this period not refunded. A charge of the period before refunded in this one counts
    // in neither: it was taken before the renewal and settled after (a plan credit is not given back
    // then: it expired with its period, CreditService.refund).
    const used = await this.credits.usedSince(organisationId, periodStart);
    const rateLimits = {} as Record<RateLimitCategory, { limit: number; remaining: number; resetAt: string }>;
    for (const category of ['analyses', 'reads', 'writes'] as const) {
      const w = await this.limiter.peek(`key:${actorId}:${category}`, limits.rateLimits[category]);
      rateLimits[category] = {
        limit: w.limit,
        remaining: w.remaining,
        resetAt: new Date(w.resetAt * 1000).toISOString(),
      };
    }
    return {
      // A batch of N images takes N analyses slots at once (all or nothing), so no batch larger than
      // the analyses limit can ever be accepted: report what a batch can really hold.
      maxBatchSize: Math.min(limits.maxBatchSize, limits.rateLimits.analyses),
      credits: {
        remaining: balance.remaining,
        usedThisPeriod: used,
        plan: balance.plan,
        payg: balance.payg,
      },
      plan: {
        tier: org.plan,
        periodStart: periodStart.toISOString(),
        periodEnd: periodEnd.toISOString(),
        monthlyCredits: org.monthlyCredits,
        maxBatchSize: limits.maxBatchSize,
      },
      rateLimits,
    };
  }

  /**
   * Analyses submitted on each of the last `days` days (UTC), today included, with how many of them
   * have completed, failed or are still processing: the console's chart. Days without any are zeros.
   */
  async daily(organisationId: string, days: number) {
    const now = new Date();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const from = new Date(today - (days - 1) * 86_400_000);
    const rows = await this.em
      .getRepository<Analysis, AnalysisRepository>(Analysis)
      .dailyCounts(organisationId, idAt('analysis', from));
    const byDay = new Map(rows.map((r) => [r.day, r]));
    const series = Array.from({ length: days }, (_, i) => {
      const date = new Date(from.getTime() + i * 86_400_000).toISOString().slice(0, 10);
      const r = byDay.get(date);
      return {
        date,
        submitted: r?.submitted ?? 0,
        completed: r?.completed ?? 0,
        failed: r?.failed ?? 0,
        processing: r?.processing ?? 0,
      };
    });
    return { days, from: series[0]!.date, to: series.at(-1)!.date, series };
  }
}
