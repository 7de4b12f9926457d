import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { CreditLedger } from './credit-ledger.repository.js';

const p = defineEntity.properties;

export const CREDIT_REASONS = ['grant', 'plan_allocation', 'plan_expiry', 'analysis', 'refund', 'adjustment'] as const;
export const CREDIT_POOLS = ['plan', 'payg'] as const;

/**
 * Append-only ledger. The balance columns on the organisation are the running sum of these rows,
 * updated in the same transaction, so a row exists for every credit that moved.
 */
export const CreditEntry = defineEntity({
  name: 'CreditEntry',
  tableName: 'credit_entries',
  repository: () => CreditLedger,
  properties: {
    id: p.string().primary(),
    organisationId: p.string().index(),
    /** Positive for grants and refunds, negative for consumption. */
    planDelta: p.integer().default(0),
    paygDelta: p.integer().default(0),
    reason: p.enum([...CREDIT_REASONS]),
    /** For consumption and refunds: the analysis concerned. With reason and attempt, unique. */
    analysisId: p.string().nullable(),
    /**
     * For an analysis' charge and refund: 0 for its submission, n for an operator's n-th retry
     * (analyses:retry). Unique with the analysis and reason: each charge taken and refunded once.
     */
    attempt: p.integer().default(0),
    note: p.string().nullable(),
    /**
     * For a renewal's two entries (plan_expiry, plan_allocation): the period they open. Unique with
     * the organisation and reason, so a period is renewed at most once whatever retries happen.
     */
    periodStart: p.datetime().nullable(),
    /**
     * For an analysis' charge: the start of the plan period it was charged in, read under the
     * organisation's row lock (so a charge is wholly before or after a renewal). A refund gives a plan
     * credit back only while that period is current: the renewal expired the plan pool it came from.
     */
    planPeriodStart: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [
    { properties: ['analysisId', 'reason', 'attempt'], name: 'credit_entries_analysis_reason_attempt_unique' },
    { properties: ['organisationId', 'reason', 'periodStart'], name: 'credit_entries_period_reason_unique' },
  ],
});
export type CreditEntry = InferEntity<typeof CreditEntry>;
