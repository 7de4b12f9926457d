import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { OrganisationRepository } from './organisation.repository.js';

const p = defineEntity.properties;

export const PLAN_TIERS = ['free', 'starter', 'growth', 'pro', 'scale', 'enterprise'] as const;
export type PlanTier = (typeof PLAN_TIERS)[number];

export const Organisation = defineEntity({
  name: 'Organisation',
  tableName: 'organisations',
  repository: () => OrganisationRepository,
  properties: {
    id: p.string().primary(),
    name: p.string(),
    plan: p.enum([...PLAN_TIERS]).default('free'),
    /** Credits of the current plan period; spent before pay-as-you-go credits. */
    planCredits: p.integer().default(0),
    paygCredits: p.integer().default(0),
    /** Credits granted at the start of each plan period. */
    monthlyCredits: p.integer().default(0),
    /** The current plan period: [periodStart, periodEnd). Renewed by the organisation's plan-period workflow. */
    periodStart: p.datetime(),
    /** Indexed for the relay's look for organisations whose renewal is overdue. */
    periodEnd: p.datetime().index(),
    /**
     * When the plan-period workflow was last started or found running (outbox mark): null means the
     * worker's relay still has to start it (new organisations, and every organisation at the upgrade).
     */
    planWorkflowEnsuredAt: p.datetime().nullable(),
    /** Enterprise overrides: { rateLimits?: { analyses, reads, writes }, maxBatchSize? }. */
    customLimits: p.json<{ rateLimits?: Record<string, number>; maxBatchSize?: number }>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [
    {
      // The relay's sweep: organisations whose plan-period workflow has not been started yet.
      name: 'organisations_plan_workflow_pending_index',
      expression: `create index "organisations_plan_workflow_pending_index" on "organisations" ("created_at") where "plan_workflow_ensured_at" is null`,
    },
  ],
});
export type Organisation = InferEntity<typeof Organisation>;
