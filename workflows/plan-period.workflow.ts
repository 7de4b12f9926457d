import {
  continueAsNew,
  isCancellation,
  log,
  proxyActivities,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { NEEDS_ATTENTION } from '../src/temporal/contracts/durable-steps.js';
import {
  RENEWAL,
  type PlanPeriodActivities,
  type PlanPeriodInput,
  type PlanPeriodWorkflow,
} from '../src/temporal/contracts/plan-period.js';
import { SA } from '../src/temporal/contracts/search-attributes.js';

const { currentPlanPeriod, renewPlanPeriod } = proxyActivities<PlanPeriodActivities>(RENEWAL);

/**
 * One per organisation (workflow id `plan-period-<organisationId>`), for as long as it exists: a
 * durable timer to the period end, then the renewal (one transaction, exactly once: the database
 * checks the period end it renews), then a new run for the next period, so each run's history stays
 * a few events long. The period end comes from the database, so the month arithmetic is not here.
 * Periods already past when a run starts (a new workflow for an old organisation, workers down for a
 * while) are renewed one after the other, each its own entries.
 */
export async function planPeriodWorkflow(input: PlanPeriodInput): Promise<void> {
  const { organisationId } = input;
  const periodEnd = input.periodEnd ?? (await step(() => currentPlanPeriod({ organisationId })))?.periodEnd;
  if (!periodEnd) return; // the organisation no longer exists: nothing to renew
  await sleep(Math.max(0, Date.parse(periodEnd) - Date.now()));
  const next = await step(() => renewPlanPeriod({ organisationId, periodEnd }));
  if (!next) return;
  await continueAsNew<PlanPeriodWorkflow>({ organisationId, periodEnd: next.periodEnd });
}

/**
 * Runs an activity until it succeeds: a database refusal (the only failure that ends the activity's
 * own retries) marks the workflow `needs_attention` and waits an hour before trying again; the mark
 * is cleared once it succeeds.
 */
async function step<T>(fn: () => Promise<T>): Promise<T> {
  let marked = false;
  for (;;) {
    try {
      const result = await fn();
      if (marked) upsertSearchAttributes([{ key: SA.status, value: null }]);
      return result;
    } catch (err) {
      if (isCancellation(err)) throw err; // cancelled by an operator: end, do not wait an hour
      log.error('plan period step refused; retrying in an hour', { error: String(err) });
      if (!marked) upsertSearchAttributes([{ key: SA.status, value: NEEDS_ATTENTION }]);
      marked = true;
      await sleep('1 hour');
    }
  }
}

planPeriodWorkflow satisfies PlanPeriodWorkflow;
