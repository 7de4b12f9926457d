import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import { CreditEntry } from '../credits/credit-entry.entity.js';
import { periodEndAfter } from './plan-period.js';
import type { PlanPeriod, PlanRenewal } from '../../temporal/contracts/plan-period.js';

type OrgPeriodRow = {
  plan_credits: number;
  monthly_credits: number;
  period_start: Date;
  period_end: Date;
  created_at: Date;
};

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
    const [row] = await sql<Pick<OrgPeriodRow, 'period_start' | 'period_end'>>(
      this.em,
      `select period_start, period_end from organisations where id = ?`,
      [organisationId],
    );
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
      const [org] = await sql<OrgPeriodRow>(
        em,
        `select plan_credits, monthly_credits, period_start, period_end, created_at
           from organisations where id = ? for update`,
        [organisationId],
      );
      if (!org) return null;
      if (new Date(org.period_end).getTime() !== Date.parse(periodEnd))
        return { ...period(org), renewed: false, expired: 0, granted: 0 };
      const start = new Date(org.period_end);
      const end = periodEndAfter(start, new Date(org.created_at).getUTCDate(), this.periodMs);
      const expired = Math.max(0, org.plan_credits);
      const granted = org.monthly_credits;
      await sql(
        em,
        `update organisations set plan_credits = ?, period_start = ?, period_end = ?, updated_at = now() where id = ?`,
        [granted, start, end, organisationId],
      );
      if (expired > 0)
        em.create(CreditEntry, {
          id: newId('creditEntry'),
          organisationId,
          planDelta: -expired,
          reason: 'plan_expiry',
          periodStart: start,
          note: 'unused plan credits expired at the period end',
        });
      em.create(CreditEntry, {
        id: newId('creditEntry'),
        organisationId,
        planDelta: granted,
        reason: 'plan_allocation',
        periodStart: start,
        note: 'plan period renewal',
      });
      await em.flush();
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
