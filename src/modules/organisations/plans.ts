import type { PlanTier } from './organisation.entity.js';

/** No batch is larger than this, whatever an enterprise's custom maxBatchSize says (the body stays bounded). */
export const MAX_BATCH_IMAGES = 1000;

export type RateLimitCategory = 'analyses' | 'reads' | 'writes';

export type PlanLimits = {
  rateLimits: Record<RateLimitCategory, number>;
  maxBatchSize: number;
  /** Credits granted at the start of each monthly period (our choice; the spec gives none). */
  monthlyCredits: number;
};

/** The spec's rate-limit table and decisions.md's batch sizes. Enterprise starts at Scale and is overridden per organisation. */
export const PLANS: Record<PlanTier, PlanLimits> = {
  free: { rateLimits: { analyses: 5, reads: 60, writes: 20 }, maxBatchSize: 20, monthlyCredits: 50 },
  starter: { rateLimits: { analyses: 10, reads: 120, writes: 40 }, maxBatchSize: 50, monthlyCredits: 1_000 },
  growth: { rateLimits: { analyses: 30, reads: 300, writes: 80 }, maxBatchSize: 100, monthlyCredits: 5_000 },
  pro: { rateLimits: { analyses: 60, reads: 600, writes: 150 }, maxBatchSize: 150, monthlyCredits: 20_000 },
  scale: { rateLimits: { analyses: 150, reads: 1200, writes: 300 }, maxBatchSize: 200, monthlyCredits: 100_000 },
  enterprise: { rateLimits: { analyses: 150, reads: 1200, writes: 300 }, maxBatchSize: 200, monthlyCredits: 0 },
};

/**
 * Each plan's share of a contended queue (Temporal's fairness weight; docs/decisions.md, "Fair dispatch
 * across organisations"): under a backlog, organisations get dispatches in proportion to these, so a
 * scale organisation's photos go five times as often as a free one's, and nobody's wait is unbounded.
 * Gentler than the rate limits' spread (30x): a plan buys a larger share, not the queue.
 */
export const FAIRNESS_WEIGHTS: Record<PlanTier, number> = {
  free: 1,
  starter: 2,
  growth: 3,
  pro: 4,
  scale: 5,
  enterprise: 5,
};

export function limitsFor(
  plan: PlanTier,
  custom?: { rateLimits?: Partial<Record<string, number>>; maxBatchSize?: number } | null,
): PlanLimits {
  const base = PLANS[plan];
  if (plan !== 'enterprise' || !custom) return base;
  return {
    rateLimits: { ...base.rateLimits, ...(custom.rateLimits as Partial<Record<RateLimitCategory, number>>) },
    maxBatchSize: Math.min(custom.maxBatchSize ?? base.maxBatchSize, MAX_BATCH_IMAGES),
    monthlyCredits: base.monthlyCredits,
  };
}
