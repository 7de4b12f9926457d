import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Config } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { listen } from '../../src/http/listen.js';
import type { RouteDefinition } from '../../src/http/route.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { createApiTemporalClient } from '../../src/temporal/client.js';

export type TestApi = {
  baseUrl: string;
  /** The HTTP server the app listens with (to watch requests as Node hands them over). */
  server: Server;
  runtime: Runtime;
  routes: RouteDefinition[];
  request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
};

export type RequestOptions = { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> };
export type TestResponse = { status: number; headers: Headers; body: any; text: string };

/** A real API process in this test process: real Koa, real PostgreSQL, real Temporal client. */
export async function startTestApi(overrides: Partial<Config> = {}): Promise<TestApi> {
  // The API's own Temporal client (native when the server answers), as src/server.ts makes it.
  // A request waits up to 30 s for a database connection, not the production 800 ms: on a loaded
  // test machine opening one took longer, and a poll in queue-position.test.ts got the 503 meant for
  // an unreachable database. The tests of that 503 set their own bound (database-down.test.ts).
  const runtime = await createRuntime(
    'api-test',
    { DATABASE_ACQUIRE_TIMEOUT_MS: 30_000, ...overrides },
    (cfg, logger) => createApiTemporalClient(cfg.TEMPORAL_ADDRESS, cfg.TEMPORAL_NAMESPACE, logger, cfg.LOG_LEVEL),
  );
  const { app, routes } = createApp(runtime);
  const server: Server = await listen(app, 0, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    server,
    runtime,
    routes,
    request: (method, path, opts) => request(baseUrl, method, path, opts),
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await runtime.commands.analyses.backgroundStartsSettled();
      await runtime.close();
    },
  };
}

export async function request(
  baseUrl: string,
  method: string,
  path: string,
  opts: RequestOptions = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(
    `${baseUrl}${path.startsWith('/api/') || path.startsWith('/health') ? path : `/api/v1${path}`}`,
    { method, headers, body },
  );
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
