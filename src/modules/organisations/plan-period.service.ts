import type { EntityManager } from '@mikro-orm/postgresql';
import { CreditEntry } from '../credits/credit-entry.entity.js';
import type { CreditLedger } from '../credits/credit-ledger.repository.js';
import { periodEndAfter } from './plan-period.js';
import type { PlanPeriod, PlanRenewal } from '../../temporal/contracts/plan-period.js';
import { Organisation } from './organisation.entity.js';
import type { OrganisationRepository } from './organisation.repository.js';

/**
 * Plan periods (decisions.md, Plan periods): at each period end unused plan credits expire and the
 * plan's monthly allocation is granted, pay-as-you-go credits stay. Driven by the organisation's
 * plan-period workflow; the database decides whether a period is renewed, so a retried or repeated
 * activity never renews twice.
 */
export class PlanPeriodService {
  private readonly em: EntityManager;
  /** PLAN_PERIOD_MS: a fixed period length (tests); unset, calendar months. */
  private readonly periodMs?: number;

  constructor({ em, periodMs }: { em: EntityManager; periodMs?: number }) {
    this.em = em;
    this.periodMs = periodMs;
  }

  /** The end of the first period of an organisation created at `createdAt`. */
  firstPeriodEnd(createdAt: Date): Date {
    return periodEndAfter(createdAt, createdAt.getUTCDate(), this.periodMs);
  }

  async current(organisationId: string): Promise<PlanPeriod | null> {
    const row = await this.em.getRepository<Organisation, OrganisationRepository>(Organisation).period(organisationId);
    return row ? period(row) : null;
  }

  /**
   * Renews the period that ends at `periodEnd`, exactly once: under the organisation's row lock, and
   * only if that is still its period end (else it was renewed already and the current period is
   * answered). In one transaction: plan credits set to the plan's monthly allocation (the plan as it
   * is now, so a plan change takes effect here), one `plan_expiry` entry for the unused plan credits
   * (none when nothing is left), one `plan_allocation` entry for the grant (always: it records the
   * renewal, even of 0 credits), and the next period. Both entries carry the period they open, unique
   * per organisation and reason. Null if the organisation no longer exists.
   */
  async renew(organisationId: string, periodEnd: string): Promise<PlanRenewal | null> {
    return this.em.transactional(async (em) => {
      const org = await em
        .getRepository<Organisation, OrganisationRepository>(Organisation)
        .lockForRenewal(organisationId);
      if (!org) return null;
      if (new Date(org.period_end).getTime() !== Date.parse(periodEnd))
        return { ...period(org), renewed: false, expired: 0, granted: 0 };
      const start = new Date(org.period_end);
      const end = periodEndAfter(start, new Date(org.created_at).getUTCDate(), this.periodMs);
      const expired = Math.max(0, org.plan_credits);
      const granted = org.monthly_credits;
      // The credits move on the ledger (credit-ledger.repository.ts), in this transaction, under this lock.
      await em
        .getRepository<CreditEntry, CreditLedger>(CreditEntry)
        .renewPlanPeriod(organisationId, { start, end, expired, granted });
      return { periodStart: start.toISOString(), periodEnd: end.toISOString(), renewed: true, expired, granted };
    });
  }
}

function period(row: { period_start: Date; period_end: Date }): PlanPeriod {
  return {
    periodStart: new Date(row.period_start).toISOString(),
    periodEnd: new Date(row.period_end).toISOString(),
  };
}
