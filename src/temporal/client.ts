import { Client, Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { Logger } from '../lib/logger.js';
import { tracingEnabled } from '../lib/tracing.js';

/**
 * `eagerStarts`: the client shares its connection with this process's workers, so a workflow it
 * starts on a queue they poll can come back with its first task in the start's answer.
 */
export type TemporalHandle = { client: Client; connection: Connection | NativeConnection; eagerStarts: boolean };

// With tracing on, each start and signal carries the caller's span into the workflow's headers.
const interceptors = () =>
  tracingEnabled() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;

/**
 * One lazily-connected client per process: the API can boot before Temporal is reachable and
 * reports it through /health/ready instead of crashing.
 */
export function createTemporalClient(address: string, namespace: string): TemporalHandle {
  return handleOn(Connection.lazy({ address }), namespace, false);
}

/**
 * The worker process's one client, on the connection its workers poll with. Besides one connection
 * fewer, this is what eager workflow start needs: a delivery workflow started by an activity gets
 * its first workflow task in the start's answer and runs here at once, instead of a trip through
 * the server's matching service and the next poll.
 */
export function temporalClientOn(connection: NativeConnection, namespace: string): TemporalHandle {
  return handleOn(connection, namespace, true);
}

function handleOn(connection: Connection | NativeConnection, namespace: string, eagerStarts: boolean): TemporalHandle {
  return { connection, client: new Client({ connection, namespace, interceptors: interceptors() }), eagerStarts };
}

/**
 * The API's client. On a native connection (the SDK's Rust core, as the workers use) when Temporal
 * answers at boot: it spends about half the CPU per workflow start of the pure-JS gRPC client, and a
 * submission's start is most of the API's work (decisions.md, "The API's Temporal client"). When
 * Temporal does not answer yet, the lazy JS client instead, so the API still boots first and reports
 * Temporal on /health/ready; it does not switch later (restart the API to get the native one).
 */
export async function createApiTemporalClient(
  address: string,
  namespace: string,
  logger: Logger,
  logLevel: string,
): Promise<TemporalHandle> {
  const { NativeConnection, Runtime } = await import('@temporalio/worker');
  const { sdkLogger } = await import('./sdk-logger.js');
  try {
    // No shutdown signals: the API's own SIGTERM handling finishes its starts before it closes this.
    Runtime.install({ shutdownSignals: [], logger: sdkLogger(logLevel, logger) });
  } catch {
    // Installed already: a process that runs workers too (tests, benchmarks) keeps its own.
  }
  try {
    // Not eager: the API runs no workers, so no start could come back with its first task.
    return handleOn(await NativeConnection.connect({ address }), namespace, false);
  } catch (err) {
    logger.warn({ err, address }, 'Temporal does not answer yet: the API uses the lazily connecting JS client');
    return createTemporalClient(address, namespace);
  }
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
