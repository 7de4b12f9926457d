import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

export const PLAN_TIERS = ['free', 'starter', 'growth', 'pro', 'scale', 'enterprise'] as const;
export type PlanTier = (typeof PLAN_TIERS)[number];

export const Organisation = defineEntity({
  name: 'Organisation',
  tableName: 'organisations',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    plan: p.enum([...PLAN_TIERS]).default('free'),
    /** Credits of the current plan period; spent before pay-as-you-go credits. */
    planCredits: p.integer().default(0),
    paygCredits: p.integer().default(0),
    /** Credits granted at the start of each plan period. */
    monthlyCredits: p.integer().default(0),
    periodEnd: p.datetime().nullable(),
    /** Enterprise overrides: { rateLimits?: { analyses, reads, writes }, maxBatchSize? }. */
    customLimits: p.json<{ rateLimits?: Record<string, number>; maxBatchSize?: number }>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Organisation = InferEntity<typeof Organisation>;
