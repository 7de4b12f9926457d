import type { Services } from '../src/services.js';
import type { AlertActivities } from '../src/temporal/contracts/alert.js';

export function createAlertActivities({ services }: { services: Services }): AlertActivities {
  return {
    async endAlertSnooze({ alertId, until }) {
      return services.alerts.endSnooze(alertId, until);
    },
  };
}
