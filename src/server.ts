import type { Server } from 'node:http';
import { createApp } from './http/app.js';
import { backgroundStartsSettled } from './modules/analyses/analysis-commands.js';
import { createRuntime } from './runtime.js';

/** The API process. */
export async function startServer(): Promise<{ server: Server; close(): Promise<void> }> {
  const runtime = await createRuntime('api');
  const { app } = createApp(runtime);
  const server = app.listen(runtime.config.PORT, runtime.config.HOST);
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const address = server.address();
  runtime.logger.info({ address }, 'API listening');
  return {
    server,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      // Starts answered for but not yet made: finish them rather than leave them to the relay.
      await backgroundStartsSettled();
      await runtime.close();
    },
  };
}
