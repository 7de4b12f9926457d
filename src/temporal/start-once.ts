import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Logger } from '../lib/logger.js';

/**
 * Runs a workflow start whose workflow id is the entity id. Finding the workflow already there
 * (a retry, the relay racing the API) means the work is in hand: that is success, not an error.
 */
export async function startOnce(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * Starts the workflow(s) of rows just committed with their outbox mark unset: best effort, as the
 * commit already holds the work. A failure is logged as `<what> deferred to the relay` (with
 * `fields`) and left to the worker's relay, which starts every row committed but never marked.
 * True when `start` ran to the end.
 */
export async function startAfterCommit(
  logger: Logger,
  what: string,
  fields: Record<string, unknown>,
  start: () => Promise<void>,
): Promise<boolean> {
  try {
    await start();
    return true;
  } catch (err) {
    logger.warn({ err, ...fields }, `${what} deferred to the relay`);
    return false;
  }
}
