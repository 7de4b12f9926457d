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

/** Waits until the workflow's history shows a durable timer started and not yet fired: it sleeps. */
export function timerStarted(client: Client, workflowId: string, timeoutMs = 30_000): Promise<true> {
  return waitFor(
    `workflow ${workflowId} waiting on a timer`,
    async () => {
      const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const started = events.filter((e) => e.timerStartedEventAttributes).length;
      const fired = events.filter((e) => e.timerFiredEventAttributes || e.timerCanceledEventAttributes).length;
      return started > fired;
    },
    timeoutMs,
    50,
  );
}

/**
 * After a worker is killed: its workflows' next tasks go to the normal task queue at once, as after a
 * graceful shutdown. Otherwise the server offers them to the dead worker's sticky queue first and
 * only moves them after the 10 s sticky schedule-to-start timeout (a delay, nothing lost).
 */
export async function forgetKilledWorker(client: Client, namespace: string, workflowIds: string[]): Promise<void> {
  for (const workflowId of workflowIds)
    await client.workflowService.resetStickyTaskQueue({ namespace, execution: { workflowId } });
}

type BatchReader = {
  request(method: 'GET', path: string, options: { key: string }): Promise<{ body: { data: Record<string, any> } }>;
};

/** Polls `GET /analyses/batch/{id}` until the batch is completed, and returns that view. */
export function batchCompleted(
  api: BatchReader,
  batchId: string,
  key: string,
  timeoutMs = 180_000,
): Promise<Record<string, any>> {
  return waitFor(
    `batch ${batchId} to complete`,
    async () => {
      const b = await api.request('GET', `/analyses/batch/${batchId}`, { key });
      return b.body.data.status === 'completed' && b.body.data;
    },
    timeoutMs,
    250,
  );
}
