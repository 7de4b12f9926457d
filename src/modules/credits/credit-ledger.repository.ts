import { EntityRepository } from '@mikro-orm/postgresql';
import { afterCommit } from '../../db/after-commit.js';
import { sql } from '../../db/sql.js';
import { InsufficientCreditsError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { metrics } from '../../lib/metrics.js';
import type { CreditEntry } from './credit-entry.entity.js';

export type CreditPool = 'plan' | 'payg';
export type Balance = { plan: number; payg: number; remaining: number };

/** The note of a refund that gives nothing back: its plan credit's period had ended. */
export const EXPIRED_REFUND_NOTE =
  'plan credit not restored: charged in a plan period that has ended, whose unused plan credits expired';

/**
 * The charge rule, as CTEs for a statement to continue: `o`, the organisation's row locked (with its
 * `period_start`, which the charges record) and `k`, how many credits it takes; `u`, the UPDATE
 * taking those `k`, plan credits first, only if at least the last `?` stay (else `u` is empty and
 * nothing is taken). `u` returns `k`, `from_plan` and the balances left. Parameters: the number
 * requested, the organisation id, the balance to keep. `each`: as many of those requested as there
 * are credits (a group of single submissions, each all or nothing on its own); `all`: all of them or
 * none (a batch, a retry). Every charge runs it, so which pool pays is decided here only.
 */
function chargeRule(mode: 'all' | 'each'): string {
  const k = mode === 'each' ? 'least(?::int, plan_credits + payg_credits)' : '?::int';
  return `with o as (
  select id, plan_credits, payg_credits, period_start, ${k} as k
    from organisations where id = ? for update),
u as (
  update organisations t
     set plan_credits = o.plan_credits - least(o.plan_credits, o.k),
         payg_credits = o.payg_credits - (o.k - least(o.plan_credits, o.k)),
         updated_at = now()
    from o
   where t.id = o.id and o.plan_credits + o.payg_credits - o.k >= ?::int
  returning o.k, least(o.plan_credits, o.k) as from_plan, t.plan_credits, t.payg_credits)`;
}

/** The charge of a group of single submissions (`chargeRule('each')`); AnalysisRepository.chargeAndInsert continues it. */
export const CHARGE_EACH = chargeRule('each');

/**
 * The ledger rows of a CHARGE_EACH continued by a statement that has the rows charged as CTE `r`
 * (`entry_id`, `id` the analysis, `ord` from 1): CTE `c`, one `analysis` entry for each of the first
 * `u.k`, plan credits first as `u.from_plan` says. Its one parameter: the entries' `created_at`.
 */
export const CHARGE_EACH_ENTRIES = `c as (
  insert into credit_entries (id, organisation_id, plan_delta, payg_delta, reason, analysis_id, attempt, plan_period_start, created_at)
  select r.entry_id, o.id, case when r.ord <= u.from_plan then -1 else 0 end, case when r.ord <= u.from_plan then 0 else -1 end,
         'analysis', r.id, 0, o.period_start, ?::timestamptz
    from r, u, o where r.ord <= u.k)`;

const balanceOf = (row: { plan_credits: number; payg_credits: number }): Balance => ({
  plan: row.plan_credits,
  payg: row.payg_credits,
  remaining: row.plan_credits + row.payg_credits,
});

/**
 * The credit ledger: the one place credits move. The balance columns on the organisation are the
 * running sum of the ledger's rows, so every change to them and every ledger row is written here, in
 * the transaction of the entity manager it belongs to (`em.getRepository(CreditEntry)`), and the
 * charge rule (plan credits first) is `chargeRule`, whatever the caller.
 */
export class CreditLedger extends EntityRepository<CreditEntry> {
  /** Adds credits to a pool and writes the ledger row; runs inside the caller's transaction. */
  async grant(organisationId: string, amount: number, pool: CreditPool, note?: string): Promise<Balance> {
    const em = this.getEntityManager();
    const column = pool === 'plan' ? 'plan_credits' : 'payg_credits';
    const rows = await sql<{ plan_credits: number; payg_credits: number }>(
      em,
      `update organisations set ${column} = ${column} + ?, updated_at = now() where id = ? returning plan_credits, payg_credits`,
      [amount, organisationId],
    );
    const row = rows[0];
    if (!row) throw new Error(`organisation ${organisationId} does not exist`);
    this.create({
      id: newId('creditEntry'),
      organisationId,
      planDelta: pool === 'plan' ? amount : 0,
      paygDelta: pool === 'payg' ? amount : 0,
      reason: pool === 'plan' ? 'plan_allocation' : 'grant',
      note: note ?? null,
    });
    await em.flush();
    return balanceOf(row);
  }

  /**
   * Takes one credit per analysis, plan credits first, all or nothing, inside the caller's
   * transaction (the one that creates the analyses). The row lock on the organisation serialises
   * concurrent submissions, and the guard in the WHERE clause keeps the balance from going negative.
   * `attempt` numbers an operator's retry of a failed analysis (0: its submission), so the retry's
   * charge is a ledger row of its own, taken at most once.
   */
  async consume(organisationId: string, analysisIds: string[], attempt = 0): Promise<Balance> {
    const em = this.getEntityManager();
    const n = analysisIds.length;
    const rows = await sql<{ plan_taken: number; plan_credits: number; payg_credits: number; period_start: Date }>(
      em,
      `${chargeRule('all')}
       select u.from_plan as plan_taken, u.plan_credits, u.payg_credits, o.period_start from o, u`,
      // Keep at least 0: `all` takes the n requested only if there are n.
      [n, organisationId, 0],
    );
    const row = rows[0];
    if (!row) {
      const balance = await this.balance(organisationId);
      throw new InsufficientCreditsError(n, balance.remaining);
    }
    analysisIds.forEach((analysisId, i) => {
      const fromPlan = i < row.plan_taken;
      this.create({
        id: newId('creditEntry'),
        organisationId,
        planDelta: fromPlan ? -1 : 0,
        paygDelta: fromPlan ? 0 : -1,
        reason: 'analysis',
        analysisId,
        attempt,
        planPeriodStart: row.period_start,
      });
    });
    afterCommit(em, () => metrics.creditsCharged.inc(analysisIds.length));
    return balanceOf(row);
  }

  /**
   * One credit for each analysis in order, while credits last (a group of single submissions, each
   * all or nothing on its own): one conditional UPDATE under the organisation's row lock, plan credits
   * first, and the ledger rows of those taken. Returns how many were taken (the first `taken` ids).
   */
  async consumeEach(organisationId: string, analysisIds: string[]): Promise<{ taken: number; balance: Balance }> {
    const em = this.getEntityManager();
    const n = analysisIds.length;
    const [row] = await sql<{
      plan_before: number;
      payg_before: number;
      plan_credits: number;
      payg_credits: number;
      period_start: Date;
    }>(
      em,
      `${CHARGE_EACH}
       select o.plan_credits as plan_before, o.payg_credits as payg_before, u.plan_credits, u.payg_credits, o.period_start
         from o, u`,
      // Keep at least 0: never refused, the balance cannot go under it.
      [n, organisationId, 0],
    );
    if (!row) throw new Error(`organisation ${organisationId} does not exist`);
    const taken = Math.min(n, row.plan_before + row.payg_before);
    const fromPlan = Math.min(row.plan_before, taken);
    analysisIds.slice(0, taken).forEach((analysisId, i) => {
      this.create({
        id: newId('creditEntry'),
        organisationId,
        planDelta: i < fromPlan ? -1 : 0,
        paygDelta: i < fromPlan ? 0 : -1,
        reason: 'analysis',
        analysisId,
        planPeriodStart: row.period_start,
      });
    });
    if (taken > 0) afterCommit(em, () => metrics.creditsCharged.inc(taken));
    return { taken, balance: balanceOf(row) };
  }

  /**
   * Gives a failed analysis its credit back, to the pool it came from, exactly once per charge: the
   * refund takes the number of the analysis' latest charge (its submission's, or a retry's), and the
   * ledger's unique (analysis, reason, attempt) makes a second refund insert nothing and change nothing.
   *
   * A plan credit goes back only while the plan period it was charged in is current. A renewal
   * expired what was left of that period's plan pool and granted the new period its own; had the
   * analysis never been submitted, its credit would have expired with the others, so putting it
   * into the new pool would hand the organisation an expired credit. Its refund entry then moves
   * nothing and its note says why (it still settles the charge: a retry charges again). Pay-as-you-go
   * credits do not expire and always go back. The organisation's row is locked before its period is
   * read, so a renewal is wholly before or after the refund.
   * Returns whether a credit was given back.
   */
  async refund(analysisId: string): Promise<boolean> {
    const em = this.getEntityManager();
    const [charge] = await sql<{ organisation_id: string; plan_period_start: Date | null }>(
      em,
      `select organisation_id, plan_period_start from credit_entries
        where analysis_id = ? and reason = 'analysis' order by attempt desc limit 1`,
      [analysisId],
    );
    if (!charge) return false;
    const [org] = await sql<{ period_start: Date }>(
      em,
      `select period_start from organisations where id = ? for update`,
      [charge.organisation_id],
    );
    // Periods only move on: a renewal's period starts where the one before ended, after any start
    // before it. A charge recorded before charges carried their period (null) is of a period that ended.
    const periodEnded =
      !org || !charge.plan_period_start || new Date(charge.plan_period_start) < new Date(org.period_start);
    const inserted = await sql<{ organisation_id: string; plan_delta: number; payg_delta: number }>(
      em,
      `insert into credit_entries (id, organisation_id, plan_delta, payg_delta, reason, analysis_id, attempt, note, created_at)
       select ?, organisation_id, case when ? then 0 else -plan_delta end, -payg_delta, 'refund', analysis_id, attempt,
              case when ? and plan_delta < 0 then ? end, now()
         from credit_entries where analysis_id = ? and reason = 'analysis'
        order by attempt desc limit 1
       on conflict (analysis_id, reason, attempt) do nothing
       returning organisation_id, plan_delta, payg_delta`,
      [newId('creditEntry'), periodEnded, periodEnded, EXPIRED_REFUND_NOTE, analysisId],
    );
    const row = inserted[0];
    if (!row || (row.plan_delta === 0 && row.payg_delta === 0)) return false;
    await sql(
      em,
      `update organisations set plan_credits = plan_credits + ?, payg_credits = payg_credits + ?, updated_at = now() where id = ?`,
      [row.plan_delta, row.payg_delta, row.organisation_id],
    );
    return true;
  }

  /**
   * A plan period's renewal, inside the caller's transaction and under its lock on the organisation's
   * row: plan credits set to `granted`, the next period (`start` to `end`), one `plan_expiry` entry
   * for the `expired` unused plan credits (none when nothing is left) and one `plan_allocation` entry
   * for the grant (always: it records the renewal, even of 0 credits). Both entries carry the period
   * they open, unique per organisation and reason.
   */
  async renewPlanPeriod(
    organisationId: string,
    renewal: { start: Date; end: Date; expired: number; granted: number },
  ): Promise<void> {
    const em = this.getEntityManager();
    const { start, end, expired, granted } = renewal;
    await sql(
      em,
      `update organisations set plan_credits = ?, period_start = ?, period_end = ?, updated_at = now() where id = ?`,
      [granted, start, end, organisationId],
    );
    if (expired > 0)
      this.create({
        id: newId('creditEntry'),
        organisationId,
        planDelta: -expired,
        reason: 'plan_expiry',
        periodStart: start,
        note: 'unused plan credits expired at the period end',
      });
    this.create({
      id: newId('creditEntry'),
      organisationId,
      planDelta: granted,
      reason: 'plan_allocation',
      periodStart: start,
      note: 'plan period renewal',
    });
    await em.flush();
  }

  async balance(organisationId: string): Promise<Balance> {
    const rows = await sql<{ plan_credits: number; payg_credits: number }>(
      this.getEntityManager(),
      `select plan_credits, payg_credits from organisations where id = ?`,
      [organisationId],
    );
    const row = rows[0];
    if (!row) throw new Error(`organisation ${organisationId} does not exist`);
    return balanceOf(row);
  }

  /**
   * Charges since `since` not refunded. A charge before it refunded after counts in neither: it was
   * taken before the renewal and settled after.
   */
  async usedSince(organisationId: string, since: Date): Promise<number> {
    const [used] = await sql<{ used: number }>(
      this.getEntityManager(),
      `select count(*) filter (where r.id is null)::int as used
         from credit_entries c
         left join credit_entries r on r.analysis_id = c.analysis_id and r.attempt = c.attempt and r.reason = 'refund'
        where c.organisation_id = ? and c.reason = 'analysis' and c.created_at >= ?`,
      [organisationId, since],
    );
    return used?.used ?? 0;
  }
}
