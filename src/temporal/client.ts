import { Client, Connection } from '@temporalio/client';

export type TemporalHandle = { client: Client; connection: Connection };

/**
 * One lazily-connected client per process: the API can boot before Temporal is reachable and
 * reports it through /health/ready instead of crashing.
 */
export function createTemporalClient(address: string, namespace: string): TemporalHandle {
  const connection = Connection.lazy({ address });
  return { connection, client: new Client({ connection, namespace }) };
}

export async function temporalHealthy(handle: TemporalHandle, timeoutMs = 2000): Promise<boolean> {
  try {
    await handle.connection.withDeadline(Date.now() + timeoutMs, () =>
      handle.connection.workflowService.getSystemInfo({}),
    );
    return true;
  } catch {
    return false;
  }
}
