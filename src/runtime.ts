import { config, type Config } from './config.js';
import { initORM, type Orm } from './db/orm.js';
import { createLogger, type Logger } from './lib/logger.js';
import { RedisWindows } from './modules/rate-limits/redis-windows.js';
import { createCommands, type Commands } from './commands.js';
import { createServices, type Services } from './services.js';
import { createTemporalClient, type TemporalHandle } from './temporal/client.js';
import { initTracing } from './lib/tracing.js';

export type Runtime = {
  config: Config;
  orm: Orm;
  services: Services;
  commands: Commands;
  temporal: TemporalHandle;
  logger: Logger;
  close(): Promise<void>;
};

/**
 * What every long-running process needs: config parsed once, the ORM, the services and commands, one
 * Temporal client (`temporalClient`: the worker's, on its workers' connection; otherwise a lazy one).
 */
export async function createRuntime(
  name: string,
  overrides: Partial<Config> = {},
  temporalClient?: (cfg: Config, logger: Logger) => Promise<TemporalHandle>,
): Promise<Runtime> {
  const cfg = { ...config(), ...overrides };
  const logger = createLogger(cfg.LOG_LEVEL, name);
  const orm = await initORM(cfg.DATABASE_URL, cfg.DATABASE_POOL_MAX, {
    acquireTimeoutMs: cfg.DATABASE_ACQUIRE_TIMEOUT_MS,
    connectTimeoutMs: cfg.DATABASE_CONNECT_TIMEOUT_MS,
  });
  initTracing(name, { endpoint: cfg.OTEL_EXPORTER_OTLP_ENDPOINT });
  const temporal =
    (await temporalClient?.(cfg, logger)) ?? createTemporalClient(cfg.TEMPORAL_ADDRESS, cfg.TEMPORAL_NAMESPACE);
  // The process's one Redis client for rate-limit windows, if any: its services share it, close() ends it.
  const redisWindows = cfg.REDIS_URL ? new RedisWindows(cfg.REDIS_URL, logger) : undefined;
  const services = createServices(orm.em, { config: cfg, logger, redisWindows });
  const commands = createCommands(services, {
    client: temporal.client,
    eagerStarts: temporal.eagerStarts,
    config: cfg,
    logger,
  });
  return {
    config: cfg,
    orm,
    services,
    commands,
    temporal,
    logger,
    async close() {
      await temporal.connection.close().catch(() => undefined);
      await redisWindows?.close();
      await orm.close();
    },
  };
}
