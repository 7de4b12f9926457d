import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import type { CreditService } from '../credits/credit.service.js';
import { Organisation } from '../organisations/organisation.entity.js';
import { limitsFor, type RateLimitCategory } from '../organisations/plans.js';
import type { RateLimiter } from '../rate-limits/rate-limiter.js';

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
    const [used] = await sql<{ used: number }>(
      this.em,
      `select count(*) filter (where r.id is null)::int as used
         from credit_entries c
         left join credit_entries r on r.analysis_id = c.analysis_id and r.attempt = c.attempt and r.reason = 'refund'
        where c.organisation_id = ? and c.reason = 'analysis' and c.created_at >= ?`,
      [organisationId, periodStart],
    );
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
        usedThisPeriod: used?.used ?? 0,
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
}
