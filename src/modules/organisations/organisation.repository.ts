import { EntityRepository } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import type { Organisation, PlanTier } from './organisation.entity.js';

/** An organisation's row as the plan-period renewal reads it. */
export type OrgPeriodRow = {
  plan_credits: number;
  monthly_credits: number;
  period_start: Date;
  period_end: Date;
  created_at: Date;
};

/** The organisation's row as other modules need it: locks, existence, plan and plan period. */
export class OrganisationRepository extends EntityRepository<Organisation> {
  /** Takes the organisation's row lock for the rest of the transaction (a per-organisation critical section). */
  async lock(organisationId: string): Promise<void> {
    await sql(this.getEntityManager(), `select 1 from organisations where id = ? for update`, [organisationId]);
  }

  async exists(organisationId: string): Promise<boolean> {
    const [org] = await sql(this.getEntityManager(), `select id from organisations where id = ?`, [organisationId]);
    return org !== undefined;
  }

  async planOf(organisationId: string): Promise<PlanTier | undefined> {
    const [row] = await sql<{ plan: PlanTier }>(
      this.getEntityManager(),
      `select plan from organisations where id = ?`,
      [organisationId],
    );
    return row?.plan;
  }

  async period(organisationId: string): Promise<Pick<OrgPeriodRow, 'period_start' | 'period_end'> | undefined> {
    const [row] = await sql<Pick<OrgPeriodRow, 'period_start' | 'period_end'>>(
      this.getEntityManager(),
      `select period_start, period_end from organisations where id = ?`,
      [organisationId],
    );
    return row;
  }

  /** The row a renewal decides on, locked for the rest of the transaction. */
  async lockForRenewal(organisationId: string): Promise<OrgPeriodRow | undefined> {
    const [org] = await sql<OrgPeriodRow>(
      this.getEntityManager(),
      `select plan_credits, monthly_credits, period_start, period_end, created_at
           from organisations where id = ? for update`,
      [organisationId],
    );
    return org;
  }

  async markPlanWorkflowEnsured(organisationId: string): Promise<void> {
    await sql(this.getEntityManager(), `update organisations set plan_workflow_ensured_at = now() where id = ?`, [
      organisationId,
    ]);
  }

  /** Organisations whose plan-period workflow was never ensured, or not since their period ended. */
  async planWorkflowsDue(before: Date): Promise<string[]> {
    const rows = await sql<{ id: string }>(
      this.getEntityManager(),
      `(select id from organisations where plan_workflow_ensured_at is null and created_at < ? order by created_at limit 100)
       union
       (select id from organisations where period_end < ? and plan_workflow_ensured_at < ? order by period_end limit 100)`,
      [before, before, before],
    );
    return rows.map((r) => r.id);
  }

  /**
   * One page of an organisation's rows of any table for its export: each row whole (`r`) and its
   * keyset key (`k0`…), after `after`, in key order.
   */
  exportPage(
    source: { from: string; owner: string; key: string[] },
    organisationId: string,
    after: unknown[] | null,
    pageSize: number,
  ): Promise<Record<string, unknown>[]> {
    const keys = source.key.map((k, i) => `${k} as k${i}`).join(', ');
    return sql(
      this.getEntityManager(),
      `select to_jsonb(t) as r, ${keys} from ${source.from}
          where ${source.owner} = ? ${after ? `and (${source.key.join(', ')}) > (${source.key.map(() => '?').join(', ')})` : ''}
          order by ${source.key.join(', ')} limit ${pageSize}`,
      [organisationId, ...(after ?? [])],
    );
  }
}
