import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../lib/ids.js';
import { CreditEntry } from './credit-entry.entity.js';

export type CreditPool = 'plan' | 'payg';
export type Balance = { plan: number; payg: number; remaining: number };

export class CreditService {
  constructor(private readonly em: EntityManager) {}

  /** Adds credits to a pool and writes the ledger row in the same transaction. */
  async grant(organisationId: string, amount: number, pool: CreditPool, note?: string): Promise<Balance> {
    return this.em.transactional(async (em) => {
      const column = pool === 'plan' ? 'plan_credits' : 'payg_credits';
      const rows = await em.getConnection().execute<{ plan_credits: number; payg_credits: number }[]>(
        `update organisations set ${column} = ${column} + ?, updated_at = now() where id = ? returning plan_credits, payg_credits`,
        [amount, organisationId],
      );
      const row = rows[0];
      if (!row) throw new Error(`organisation ${organisationId} does not exist`);
      em.create(CreditEntry, {
        id: newId('creditEntry'),
        organisationId,
        planDelta: pool === 'plan' ? amount : 0,
        paygDelta: pool === 'payg' ? amount : 0,
        reason: pool === 'plan' ? 'plan_allocation' : 'grant',
        note: note ?? null,
      });
      await em.flush();
      return { plan: row.plan_credits, payg: row.payg_credits, remaining: row.plan_credits + row.payg_credits };
    });
  }

  async balance(organisationId: string): Promise<Balance> {
    const rows = await this.em
      .getConnection()
      .execute<{ plan_credits: number; payg_credits: number }[]>(`select plan_credits, payg_credits from organisations where id = ?`, [organisationId]);
    const row = rows[0];
    if (!row) throw new Error(`organisation ${organisationId} does not exist`);
    return { plan: row.plan_credits, payg: row.payg_credits, remaining: row.plan_credits + row.payg_credits };
  }
}
