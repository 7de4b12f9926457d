import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { tracingEnabled } from '../lib/tracing.js';

export type TemporalHandle = { client: Client; connection: Connection };

/**
 * One lazily-connected client per process: the API can boot before Temporal is reachable and
 * reports it through /health/ready instead of crashing.
 */
export function createTemporalClient(address: string, namespace: string): TemporalHandle {
  const connection = Connection.lazy({ address });
  // With tracing on, each start and signal carries the caller's span into the workflow's headers.
  const interceptors = tracingEnabled() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
  return { connection, client: new Client({ connection, namespace, interceptors }) };
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
