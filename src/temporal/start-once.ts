import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';

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
