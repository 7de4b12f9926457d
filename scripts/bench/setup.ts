import { DefaultLogger, Runtime as TemporalRuntime } from '@temporalio/worker';
import { freshDatabase } from '../lib/fresh-database.js';
import { startDevServer, type DevServer } from '../temporal.js';

/**
 * What every benchmark needs: a fresh `shelf_bench` database on DATABASE_URL's server (exported as
 * DATABASE_URL), and TEMPORAL_ADDRESS or a dev server of its own. Returns what to stop at the end.
 */
export async function benchEnvironment(temporalPort: number): Promise<{ databaseUrl: string; devServer?: DevServer }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl)
    throw new Error('Set DATABASE_URL to a PostgreSQL server (a shelf_bench database is recreated there).');
  const databaseUrl = await freshDatabase(serverUrl, 'shelf_bench');
  process.env.DATABASE_URL = databaseUrl;
  let devServer: DevServer | undefined;
  if (!process.env.TEMPORAL_ADDRESS) {
    devServer = await startDevServer({ port: temporalPort, headless: true });
    process.env.TEMPORAL_ADDRESS = devServer.address;
  }
  TemporalRuntime.install({ logger: new DefaultLogger('ERROR') });
  return { databaseUrl, devServer };
}
