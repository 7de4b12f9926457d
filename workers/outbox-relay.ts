import type { Commands } from '../src/commands.js';
import type { Config } from '../src/config.js';
import type { Logger } from '../src/lib/logger.js';
import { metrics } from '../src/lib/metrics.js';

export type OutboxRelayDeps = {
  commands: Pick<Commands, 'analyses' | 'tasks' | 'events' | 'planPeriods'>;
  config: Pick<Config, 'OUTBOX_RELAY_GRACE_MS' | 'OUTBOX_RELAY_INTERVAL_MS'>;
  logger: Logger;
  /** Runs one sweep in its own MikroORM context, as activities and requests run. */
  inContext: <T>(fn: () => Promise<T>) => Promise<T>;
};

/**
 * The outbox relay, every OUTBOX_RELAY_INTERVAL_MS: starts workflows whose rows were committed but
 * whose start was never confirmed. One sweep at a time. Returns what stops it.
 */
export function startOutboxRelay({ commands, config, logger, inContext }: OutboxRelayDeps): () => void {
  let sweeping = false;
  const relay = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    inContext(() =>
      Promise.all([
        commands.analyses.sweep(config.OUTBOX_RELAY_GRACE_MS),
        commands.tasks.sweep(config.OUTBOX_RELAY_GRACE_MS),
        commands.events.sweep(config.OUTBOX_RELAY_GRACE_MS),
        commands.planPeriods.sweep(config.OUTBOX_RELAY_GRACE_MS),
      ]),
    )
      .then(([analyses, tasks, events, planPeriods]) => {
        metrics.outboxRelayStarts.inc({ kind: 'analysis' }, analyses);
        metrics.outboxRelayStarts.inc({ kind: 'task' }, tasks);
        metrics.outboxRelayStarts.inc({ kind: 'event' }, events);
        if (analyses + tasks + events > 0) logger.info({ analyses, tasks, events }, 'relay started stranded work');
        // Not a stranded start (the OutboxRelayStarting alert): every new organisation's plan-period
        // workflow is started here, the admin CLI that creates it needs no Temporal. Counted: new starts
        // only (an overdue one found running is not).
        if (planPeriods > 0) logger.info({ organisations: planPeriods }, 'plan-period workflows started');
      })
      .catch((err) => logger.warn({ err }, 'relay sweep failed'))
      .finally(() => (sweeping = false));
  }, config.OUTBOX_RELAY_INTERVAL_MS);
  return () => clearInterval(relay);
}
