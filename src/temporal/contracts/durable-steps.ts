import type { ActivityOptions, LocalActivityOptions } from '@temporalio/common';

/**
 * The failure type of a write the database refused for its data (SQLSTATE class 22, or an integrity
 * violation of class 23 that a later attempt cannot clear). Thrown non-retryable by every activity
 * (activities/database-refusals.ts); the workflows turn it into an outcome.
 */
export const DATABASE_REFUSED = 'DATABASE_REFUSED';

/** The EntityStatus search attribute of a workflow a step of which ran out: filter on it in the Web UI. */
export const NEEDS_ATTENTION = 'needs_attention';

const nonRetryableErrorTypes = [DATABASE_REFUSED];

/**
 * Writes to our own database. A refusal ends at once; anything else (connection lost, failover,
 * deadlock) is retried with backoff for up to 30 minutes, long enough to outlast a restart or a
 * failover, short enough that a result is not held for hours: then the workflow takes its failure path.
 */
export const BOOKKEEPING = {
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '30 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes },
} satisfies ActivityOptions;

/**
 * BOOKKEEPING run as a local activity, for the steps at the end of an analysis a client waits on
 * (finalize, fan-out to webhooks): no activity task round trip through the server each, and both run
 * in the workflow task that follows recognition. Same budget; past a few seconds of retrying in
 * process the backoff becomes a durable timer (localRetryThreshold).
 */
export const BOOKKEEPING_LOCAL: LocalActivityOptions = { ...BOOKKEEPING, localRetryThreshold: '10 seconds' };

/**
 * The step that settles a failure (the refund, the failed status): nothing comes after it, so it
 * gets a day. Past that the workflow fails, marked NEEDS_ATTENTION, for an operator to reset once
 * the database is back (every step is idempotent, so a reset to the first workflow task is safe).
 */
export const SETTLING: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '24 hours',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', nonRetryableErrorTypes },
};

/** A step an API request waits on (a task change): a few quick attempts, then the request fails. */
export const INTERACTIVE: ActivityOptions = {
  startToCloseTimeout: '15 seconds',
  scheduleToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    nonRetryableErrorTypes,
  },
};
