import type { Config } from '../src/config.js';
import type { Logger } from '../src/lib/logger.js';
import type { Services } from '../src/services.js';

export type HousekeepingDeps = {
  services: Pick<Services, 'rateLimiter' | 'idempotency' | 'sessions' | 'analysisProcessing'>;
  config: Pick<Config, 'IMAGE_PREVIEW_DAYS'>;
  logger: Logger;
  /** Runs one round in its own MikroORM context, as activities and requests run. */
  inContext: <T>(fn: () => Promise<T>) => Promise<T>;
};

/** How often housekeeping runs. */
const HOUSEKEEPING_EVERY_MS = 60_000;

/**
 * Housekeeping, every minute: rate-limit log rows past their window, idempotency keys past 24 hours,
 * console sessions that have ended (idle or past their absolute end), photo previews past
 * IMAGE_PREVIEW_DAYS. Returns what stops it.
 */
export function startHousekeeping({ services, config, logger, inContext }: HousekeepingDeps): () => void {
  const housekeeping = setInterval(() => {
    inContext(() =>
      Promise.all([
        services.rateLimiter.purgeExpired(),
        services.idempotency.purgeExpired(),
        services.sessions.purgeEnded(),
        services.analysisProcessing.purgePreviews(config.IMAGE_PREVIEW_DAYS),
      ]),
    )
      .then(([hits, keys, sessions, previews]) =>
        logger.debug(
          { hits, keys, sessions, previews },
          'expired rate-limit hits, idempotency keys, sessions and photo previews purged',
        ),
      )
      .catch((err) => logger.warn({ err }, 'housekeeping failed'));
  }, HOUSEKEEPING_EVERY_MS);
  return () => clearInterval(housekeeping);
}
