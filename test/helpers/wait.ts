import type { Client, WorkflowExecutionDescription } from '@temporalio/client';

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 60_000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A submission's 202 does not wait for its workflow start (decisions.md): describe it once it exists. */
export function describeWhenStarted(
  client: Client,
  workflowId: string,
  timeoutMs = 10_000,
): Promise<WorkflowExecutionDescription> {
  return waitFor(
    `workflow ${workflowId}`,
    () =>
      client.workflow
        .getHandle(workflowId)
        .describe()
        .catch(() => null),
    timeoutMs,
    50,
  );
}
