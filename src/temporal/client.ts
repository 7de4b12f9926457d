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
 * The API's client. On a native connection (the SDK's Rust core, as the workers use): it spends
 * about half the CPU per workflow start of the pure-JS gRPC client, and a submission's start is most
 * of the API's work (decisions.md, "The API's Temporal client"). When Temporal does not answer at
 * boot, the API still boots, on the lazily connecting JS client, and reports Temporal on
 * /health/ready; it tries the native connection again every `retryMs` and moves to it once Temporal
 * answers (`native()` tells which it is on).
 */
export async function createApiTemporalClient(
  address: string,
  namespace: string,
  logger: Logger,
  logLevel: string,
  retryMs = NATIVE_RETRY_MS,
): Promise<TemporalHandle & { native: () => boolean }> {
  const { NativeConnection, Runtime } = await import('@temporalio/worker');
  const { sdkLogger } = await import('./sdk-logger.js');
  try {
    // No shutdown signals: the API's own SIGTERM handling finishes its starts before it closes this.
    Runtime.install({ shutdownSignals: [], logger: sdkLogger(logLevel, logger) });
  } catch {
    // Installed already: a process that runs workers too (tests, benchmarks) keeps its own.
  }
  // Not eager: the API runs no workers, so no start could come back with its first task.
  const connectNative = () => NativeConnection.connect({ address });
  try {
    return { ...handleOn(await connectNative(), namespace, false), native: () => true };
  } catch (err) {
    logger.warn({ err, address }, 'Temporal does not answer yet: the API uses the lazily connecting JS client');
  }
  const connection = new SwitchableConnection(Connection.lazy({ address }), connectNative, retryMs, () =>
    logger.info({ address }, 'Temporal answers: the API moved to a native connection'),
  );
  return {
    ...handleOn(connection.proxy, namespace, false),
    native: () => connection.native,
  };
}

/** How often an API that booted without Temporal tries the native connection again. */
const NATIVE_RETRY_MS = 5_000;

/**
 * A connection that can be replaced under the client holding it: the client reads
 * `connection.workflowService` on every call, so a proxy that forwards to the current connection
 * moves every later call to the new one. It starts on `initial` and tries `connect` every `retryMs`
 * until one succeeds, then switches to it. The one replaced stays open (calls may be in flight on it)
 * until the handle is closed.
 */
class SwitchableConnection {
  readonly proxy: Connection;
  private current: Connection | NativeConnection;
  private readonly replaced: (Connection | NativeConnection)[] = [];
  private closed = false;

  constructor(initial: Connection, connect: () => Promise<NativeConnection>, retryMs: number, onSwitch: () => void) {
    this.current = initial;
    let attempting = false;
    const retry = setInterval(() => {
      if (attempting) return;
      attempting = true;
      connect().then(
        (next) => {
          clearInterval(retry);
          if (this.closed) return void next.close().catch(() => undefined);
          this.replaced.push(this.current);
          this.current = next;
          onSwitch();
        },
        () => (attempting = false),
      );
    }, retryMs);
    retry.unref();
    const close = async () => {
      this.closed = true;
      clearInterval(retry);
      await Promise.allSettled([this.current, ...this.replaced].map((c) => c.close()));
    };
    this.proxy = new Proxy(initial, {
      get: (_target, prop) => {
        if (prop === 'close') return close;
        const value: unknown = Reflect.get(this.current, prop, this.current);
        return typeof value === 'function' ? value.bind(this.current) : value;
      },
    });
  }

  get native(): boolean {
    return !(this.current instanceof Connection);
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
