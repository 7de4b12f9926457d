import { randomBytes } from 'node:crypto';
import { DefaultLogger, Runtime as TemporalRuntime } from '@temporalio/worker';
import type { Config } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import type { Recognizer } from '../../src/modules/recognition/recognizer.js';
import type { Organisation } from '../../src/modules/organisations/organisation.entity.js';
import type { Services } from '../../src/services.js';
import { freshDatabase } from '../../test/helpers/fresh-database.js';
import { runSecretsKey } from '../lib/run-secrets-key.js';
import { startDevServer, type DevServer, type DevServerOptions } from '../temporal.js';
import { toolSettings } from '../lib/tool-settings.js';

/**
 * What every benchmark needs: a fresh `shelf_bench` database on DATABASE_URL's server (exported as
 * DATABASE_URL), TEMPORAL_ADDRESS or a dev server of its own, and SECRETS_KEY (a random one unless
 * set; exported too, for the API and worker processes a benchmark starts). Returns what to stop at the end.
 */
export async function benchEnvironment(
  temporalPort: number,
  /** The dev server's dynamic config, if not scripts/temporal.ts's (bench:fair's run without fairness). */
  dynamicConfig?: DevServerOptions['dynamicConfig'],
): Promise<{ databaseUrl: string; devServer?: DevServer }> {
  runSecretsKey();
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl)
    throw new Error('Set DATABASE_URL to a PostgreSQL server (a shelf_bench database is recreated there).');
  // BENCH_DATABASE (BENCH_DATABASE_NAME too) and BENCH_TEMPORAL_PORT: two benchmarks on one host each on their own.
  const databaseUrl = await freshDatabase(serverUrl, toolSettings().BENCH_DATABASE_NAME);
  process.env.DATABASE_URL = databaseUrl;
  let devServer: DevServer | undefined;
  if (!process.env.TEMPORAL_ADDRESS) {
    devServer = await startDevServer({
      port: toolSettings().BENCH_TEMPORAL_PORT ?? temporalPort,
      headless: true,
      dynamicConfig,
    });
    process.env.TEMPORAL_ADDRESS = devServer.address;
  }
  TemporalRuntime.install({ logger: new DefaultLogger('ERROR') });
  return { databaseUrl, devServer };
}

/**
 * The runtime a benchmark drives: its task queues under a prefix of its own (so an earlier run's
 * workflows on the same server are not picked up), loopback hosts allowed, logs off; `overrides`
 * on top. Call after benchEnvironment (it reads the DATABASE_URL that sets).
 */
export async function benchRuntime(overrides: Partial<Config> = {}): Promise<{ prefix: string; runtime: Runtime }> {
  const prefix = `bench-${randomBytes(3).toString('hex')}-`;
  const runtime = await createRuntime('bench', {
    TASK_QUEUE_PREFIX: prefix,
    ALLOW_PRIVATE_NETWORK_FETCH: true,
    LOG_LEVEL: 'silent',
    ...overrides,
  });
  return { prefix, runtime };
}

/** Recognition is not what the benchmarks measure: a recognizer that answers at once. */
export const instant: Recognizer = {
  name: 'instant',
  async recognize() {
    return [
      {
        brand: 'Heinz',
        description: 'Baked Beans 415g',
        units: 4,
        upc: null,
        sku: null,
        category: null,
        subcategory: null,
        price: 0.95,
        discountedPrice: null,
        currency: 'GBP',
        onSale: false,
        confidenceScore: 0.9,
        shelfPosition: 'middle',
        shelfSection: 'left',
        fixtureType: 'shelf',
        sizeValue: 415,
        sizeUnit: 'g',
      },
    ];
  },
};

/**
 * One enterprise organisation with limits no benchmark reaches (and batches of up to 1,000), and a
 * write key for it.
 */
export async function benchOrganisation(
  services: Services,
  name = 'Bench',
): Promise<{ org: Organisation; writeKey: string }> {
  const org = await services.organisations.create({
    name,
    plan: 'enterprise',
    credits: 100_000,
    customLimits: { rateLimits: { analyses: 10_000_000, reads: 10_000_000, writes: 10_000_000 }, maxBatchSize: 1000 },
  });
  return { org, writeKey: (await services.apiKeys.create(org.id, 'write', 'bench write')).secret };
}
