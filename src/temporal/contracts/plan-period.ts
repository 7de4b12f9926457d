// The plan-period workflow's contract (see analysis.ts for how contracts are used).
import type { ActivityOptions } from '@temporalio/common';
import { DATABASE_REFUSED } from './durable-steps.js';

export const PLAN_PERIOD_WORKFLOW = 'planPeriodWorkflow';

/** One workflow per organisation, readable in the Web UI (also found by `OrganisationId = "org_…"`). */
export function planPeriodWorkflowId(organisationId: string): string {
  return `plan-period-${organisationId}`;
}

/**
 * `periodEnd`: the end of the period this run waits for, as the previous run's renewal answered it;
 * absent on the first run, which reads it from the database.
 */
export type PlanPeriodInput = { organisationId: string; periodEnd?: string };
export type PlanPeriodWorkflow = (input: PlanPeriodInput) => Promise<void>;

export type PlanPeriod = { periodStart: string; periodEnd: string };
/** What a renewal found and did; `renewed: false` when the period had been renewed already (a retry). */
export type PlanRenewal = PlanPeriod & { renewed: boolean; expired: number; granted: number };

export interface PlanPeriodActivities {
  /** The organisation's current period; null if it no longer exists. */
  currentPlanPeriod(input: { organisationId: string }): Promise<PlanPeriod | null>;
  /** Renews the period ending at `periodEnd` unless that was done already; null if the organisation is gone. */
  renewPlanPeriod(input: { organisationId: string; periodEnd: string }): Promise<PlanRenewal | null>;
}

/**
 * A renewal must happen, however long the database is away: retried without a time limit (backoff
 * to 10 minutes between attempts). Only a refusal of the write ends an attempt for good; the workflow
 * then marks itself for an operator and tries again an hour later.
 */
export const RENEWAL: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    nonRetryableErrorTypes: [DATABASE_REFUSED],
  },
};
