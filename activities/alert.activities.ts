import type { Config } from '../src/config.js';
import type { Orm } from '../src/db/orm.js';
import { createServices } from '../src/services.js';

export function createAlertActivities({ orm, config }: { orm: Orm; config: Config }) {
  return {
    async endAlertSnooze({ alertId, until }: { alertId: string; until: string }) {
      return createServices(orm.em.fork(), { config }).alerts.endSnooze(alertId, until);
    },
  };
}

export type AlertActivities = ReturnType<typeof createAlertActivities>;
