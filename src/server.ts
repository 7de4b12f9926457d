import type { Server } from 'node:http';
import { createApp } from './http/app.js';
import { listen } from './http/listen.js';
import { createRuntime } from './runtime.js';
import { createApiTemporalClient } from './temporal/client.js';
import { startMetricsServer } from './lib/metrics.js';

/** The API process. */
export async function startServer(): Promise<{ server: Server; close(): Promise<void> }> {
  const runtime = await createRuntime('api', {}, (cfg, logger) =>
    createApiTemporalClient(cfg.TEMPORAL_ADDRESS, cfg.TEMPORAL_NAMESPACE, logger, cfg.LOG_LEVEL),
  );
  const { app } = createApp(runtime);
  const server = await listen(app, runtime.config.PORT, runtime.config.HOST);
  const address = server.address();
  const metricsServer = await startMetricsServer(runtime.config.METRICS_PORT, runtime.config.METRICS_HOST);
  runtime.logger.info({ address, metrics: metricsServer.address() }, 'API listening');
  return {
    server,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      metricsServer.close();
      server.closeAllConnections();
      // Starts answered for but not yet made: finish them rather than leave them to the relay.
      await runtime.commands.analyses.backgroundStartsSettled();
      await runtime.close();
    },
  };
}
