import type { Services } from '../src/services.js';
import type { PlanPeriodActivities } from '../src/temporal/contracts/plan-period.js';

export function createPlanPeriodActivities({ services }: { services: Services }): PlanPeriodActivities {
  return {
    async currentPlanPeriod({ organisationId }) {
      return services.planPeriods.current(organisationId);
    },
    async renewPlanPeriod({ organisationId, periodEnd }) {
      return services.planPeriods.renew(organisationId, periodEnd);
    },
  };
}
