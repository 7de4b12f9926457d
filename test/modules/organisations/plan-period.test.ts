import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { config } from '../../../src/config.js';
import { initORM, type Orm } from '../../../src/db/orm.js';
import { sql } from '../../../src/db/sql.js';
import { EXPIRED_REFUND_NOTE } from '../../../src/modules/credits/credit.service.js';
import { addMonthsClamped, periodEndAfter } from '../../../src/modules/organisations/plan-period.js';
import { createServices } from '../../../src/services.js';

describe('plan period arithmetic', () => {
  const at = (iso: string) => new Date(iso);
  it('a month on: the same day of month and time of day, clamped to the last day, back to the anchor after', () => {
    assert.equal(addMonthsClamped(at('2027-01-31T09:30:15.250Z'), 1, 31).toISOString(), '2027-02-28T09:30:15.250Z');
    assert.equal(addMonthsClamped(at('2028-01-31T09:30:00Z'), 1, 31).toISOString(), '2028-02-29T09:30:00.000Z');
    // From the clamped end the anchor comes back: Jan 31 → Feb 28 → Mar 31, never drifting to the 28th.
    assert.equal(addMonthsClamped(at('2027-02-28T09:30:00Z'), 1, 31).toISOString(), '2027-03-31T09:30:00.000Z');
    assert.equal(addMonthsClamped(at('2027-03-31T09:30:00Z'), 1, 31).toISOString(), '2027-04-30T09:30:00.000Z');
    assert.equal(addMonthsClamped(at('2026-12-15T23:59:59Z'), 1, 15).toISOString(), '2027-01-15T23:59:59.000Z');
    assert.equal(addMonthsClamped(at('2026-11-30T00:00:00Z'), 3, 30).toISOString(), '2027-02-28T00:00:00.000Z');
  });

  it('periodEndAfter: a calendar month by default, a fixed length with PLAN_PERIOD_MS', () => {
    assert.equal(periodEndAfter(at('2027-01-31T10:00:00Z'), 31).toISOString(), '2027-02-28T10:00:00.000Z');
    assert.equal(periodEndAfter(at('2027-01-31T10:00:00Z'), 31, 5000).toISOString(), '2027-01-31T10:00:05.000Z');
    assert.equal(periodEndAfter(at('2027-02-28T10:00:00Z'), 31).toISOString(), '2027-03-31T10:00:00.000Z');
    assert.equal(periodEndAfter(at('2027-01-15T10:00:00Z'), 15).toISOString(), '2027-02-15T10:00:00.000Z');
    // Off its day (a first end from before renewals, run into the next month): back on the anchor day.
    assert.equal(periodEndAfter(at('2027-03-03T10:00:00Z'), 31).toISOString(), '2027-03-31T10:00:00.000Z');
    assert.equal(periodEndAfter(at('2026-12-01T10:00:00Z'), 30).toISOString(), '2026-12-30T10:00:00.000Z');
  });
});

describe('plan period renewal (PlanPeriodService)', () => {
  let orm: Orm;
  const PERIOD_MS = 60_000;
  /** null: calendar months (PLAN_PERIOD_MS unset). */
  const services = (periodMs: number | null = PERIOD_MS) =>
    createServices(orm.em.fork(), { config: { ...config(), PLAN_PERIOD_MS: periodMs ?? undefined } });
  const ledger = async (orgId: string) =>
    sql<{ reason: string; plan_delta: number; payg_delta: number; period_start: string | Date | null }>(
      orm.em.fork(),
      `select reason, plan_delta, payg_delta, period_start from credit_entries
        where organisation_id = ? and reason in ('plan_expiry', 'plan_allocation') and period_start is not null
        order by period_start, reason`,
      [orgId],
    );
  const consume = (orgId: string, n: number) =>
    orm.em.fork().transactional((em) =>
      services().credits.consume(
        em,
        orgId,
        Array.from({ length: n }, (_, i) => `an_plan_period_${orgId}_${Date.now()}_${i}`),
      ),
    );

  /** Moves the organisation's period a period back, so it ends now: due, as at a real renewal (after the charges made so far). */
  const makeDue = (orgId: string) =>
    sql(
      orm.em.fork(),
      `update organisations set period_start = period_start - ?::interval, period_end = now()
        where id = ?`,
      [`${PERIOD_MS} milliseconds`, orgId],
    );

  before(async () => {
    orm = await initORM(process.env.DATABASE_URL!);
  });
  after(() => orm.close());

  it('a new organisation: its period starts now and ends a calendar month later, on its day of month', async () => {
    const org = await services(null).organisations.create({ name: 'Monthly', plan: 'free' });
    assert.equal(org.periodStart.getTime(), org.createdAt.getTime());
    assert.equal(
      org.periodEnd.toISOString(),
      addMonthsClamped(org.createdAt, 1, org.createdAt.getUTCDate()).toISOString(),
    );
    assert.equal(org.planWorkflowEnsuredAt, null, 'the worker relay starts its workflow');
  });

  it('renews once: unused plan credits expire, the allocation is granted, pay-as-you-go stays, one entry each', async () => {
    const s = services();
    const org = await s.organisations.create({ name: 'Renewing', plan: 'free' });
    await s.credits.grant(org.id, 7, 'payg');
    await consume(org.id, 3);
    const first = (await s.planPeriods.current(org.id))!;
    assert.equal(first.periodEnd, new Date(org.createdAt.getTime() + PERIOD_MS).toISOString());
    await makeDue(org.id);
    const before = (await s.planPeriods.current(org.id))!;
    const usageBefore = await services().usage.usage(org.id, 'key_none');
    assert.equal(usageBefore.credits.usedThisPeriod, 3);

    const renewal = await services().planPeriods.renew(org.id, before.periodEnd);
    assert.deepEqual(renewal, {
      periodStart: before.periodEnd,
      periodEnd: new Date(Date.parse(before.periodEnd) + PERIOD_MS).toISOString(),
      renewed: true,
      expired: 47,
      granted: 50,
    });
    assert.deepEqual(
      (await ledger(org.id)).map((e) => [
        e.reason,
        e.plan_delta,
        e.payg_delta,
        e.period_start && new Date(e.period_start).toISOString(),
      ]),
      [
        ['plan_allocation', 50, 0, before.periodEnd],
        ['plan_expiry', -47, 0, before.periodEnd],
      ],
    );
    assert.deepEqual(await services().credits.balance(org.id), { plan: 50, payg: 7, remaining: 57 });
    const usage = await services().usage.usage(org.id, 'key_none');
    assert.deepEqual(usage.credits, { remaining: 57, usedThisPeriod: 0, plan: 50, payg: 7 });
    assert.equal(usage.plan.periodEnd, renewal!.periodEnd);

    // The same period again (a retried activity, a worker that died after the commit): nothing moves.
    const again = await services().planPeriods.renew(org.id, before.periodEnd);
    assert.deepEqual(again, {
      periodStart: renewal!.periodStart,
      periodEnd: renewal!.periodEnd,
      renewed: false,
      expired: 0,
      granted: 0,
    });
    assert.equal((await ledger(org.id)).length, 2);
    assert.deepEqual(await services().credits.balance(org.id), { plan: 50, payg: 7, remaining: 57 });
  });

  it('usedThisPeriod: a charge before the renewal refunded after it counts in neither period', async () => {
    const s = services();
    const org = await s.organisations.create({ name: 'Refunded across', plan: 'free' });
    const analysisId = `an_across_${org.id}`;
    await orm.em.fork().transactional((em) => services().credits.consume(em, org.id, [analysisId]));
    await consume(org.id, 2);
    await makeDue(org.id);
    assert.equal((await services().usage.usage(org.id, 'key_none')).credits.usedThisPeriod, 3);
    const { periodEnd } = (await s.planPeriods.current(org.id))!;
    await services().planPeriods.renew(org.id, periodEnd);
    await consume(org.id, 1);
    await orm.em.fork().transactional((em) => services().credits.refund(em, analysisId));
    const usage = await services().usage.usage(org.id, 'key_none');
    // Its plan credit expired with its period (the next test): the new period's pool is not topped up.
    assert.deepEqual(usage.credits, { remaining: 49, usedThisPeriod: 1, plan: 49, payg: 0 });
  });

  it('a refund gives a plan credit back only within its period; after a renewal the ledger says why not', async () => {
    const s = services();
    const org = await s.organisations.create({ name: 'Refunds and renewals', plan: 'free' });
    const refund = (analysisId: string) =>
      orm.em.fork().transactional((em) => services().credits.refund(em, analysisId));
    const refundEntry = async (analysisId: string) =>
      (
        await sql<{ plan_delta: number; payg_delta: number; note: string | null }>(
          orm.em.fork(),
          `select plan_delta, payg_delta, note from credit_entries where analysis_id = ? and reason = 'refund'`,
          [analysisId],
        )
      )[0];
    const charge = async (analysisId: string) =>
      orm.em.fork().transactional((em) => services().credits.consume(em, org.id, [analysisId]));

    // Within the period: the plan credit comes back.
    await charge(`an_same_${org.id}`);
    assert.equal((await s.credits.balance(org.id)).plan, 49);
    assert.equal(await refund(`an_same_${org.id}`), true);
    assert.deepEqual(await refundEntry(`an_same_${org.id}`), { plan_delta: 1, payg_delta: 0, note: null });
    assert.deepEqual(await s.credits.balance(org.id), { plan: 50, payg: 0, remaining: 50 });

    // Period N: one plan credit charged; 49 left expire at the renewal, which grants 50 for N+1.
    await charge(`an_before_${org.id}`);
    await makeDue(org.id);
    const renewal = await services().planPeriods.renew(org.id, (await s.planPeriods.current(org.id))!.periodEnd);
    assert.deepEqual([renewal!.expired, renewal!.granted], [49, 50]);
    // Refunded in N+1: its credit is not added to N+1's plan credits; the refund entry says why.
    const given = await refund(`an_before_${org.id}`);
    assert.deepEqual(await s.credits.balance(org.id), { plan: 50, payg: 0, remaining: 50 });
    assert.deepEqual(await refundEntry(`an_before_${org.id}`), {
      plan_delta: 0,
      payg_delta: 0,
      note: EXPIRED_REFUND_NOTE,
    });
    assert.equal(given, false, 'no credit given back');
    // Once: a second refund changes nothing either.
    assert.equal(await refund(`an_before_${org.id}`), false);
    const [sums] = await sql<{ ledger: number }>(
      orm.em.fork(),
      `select sum(plan_delta + payg_delta)::int as ledger from credit_entries where organisation_id = ?`,
      [org.id],
    );
    assert.equal(sums!.ledger, 50, 'the ledger still sums to the balance');

    // A pay-as-you-go credit does not expire: charged in N+1 (plan credits spent), refunded in N+2, back.
    await s.credits.grant(org.id, 2, 'payg');
    await orm.em.fork().transactional((em) =>
      services().credits.consume(
        em,
        org.id,
        Array.from({ length: 51 }, (_, i) => `an_payg_${org.id}_${i}`),
      ),
    );
    assert.deepEqual(await s.credits.balance(org.id), { plan: 0, payg: 1, remaining: 1 });
    await makeDue(org.id);
    await services().planPeriods.renew(org.id, (await s.planPeriods.current(org.id))!.periodEnd);
    assert.equal(await refund(`an_payg_${org.id}_50`), true, 'the payg charge');
    assert.equal(await refund(`an_payg_${org.id}_0`), false, 'a plan charge of N+1');
    assert.deepEqual(await s.credits.balance(org.id), { plan: 50, payg: 2, remaining: 52 });
    assert.deepEqual(await refundEntry(`an_payg_${org.id}_50`), { plan_delta: 0, payg_delta: 1, note: null });
  });

  it('concurrent renewals of one period: exactly one renews (the row lock and the period check)', async () => {
    const org = await services().organisations.create({ name: 'Racing', plan: 'free' });
    const { periodEnd } = (await services().planPeriods.current(org.id))!;
    const results = await Promise.all(Array.from({ length: 6 }, () => services().planPeriods.renew(org.id, periodEnd)));
    assert.equal(results.filter((r) => r!.renewed).length, 1);
    assert.equal(new Set(results.map((r) => r!.periodEnd)).size, 1);
    const entries = await ledger(org.id);
    assert.deepEqual(
      entries.map((e) => [e.reason, e.plan_delta]),
      [
        ['plan_allocation', 50],
        ['plan_expiry', -50],
      ],
    );
  });

  it('the ledger refuses a second renewal entry for the same organisation, reason and period', async () => {
    const org = await services().organisations.create({ name: 'Unique', plan: 'free' });
    const { periodEnd } = (await services().planPeriods.current(org.id))!;
    await services().planPeriods.renew(org.id, periodEnd);
    await assert.rejects(
      sql(
        orm.em.fork(),
        `insert into credit_entries (id, organisation_id, plan_delta, payg_delta, reason, period_start, created_at)
         values ('cre_duplicate_${org.id}', ?, 50, 0, 'plan_allocation', ?, now())`,
        [org.id, new Date(periodEnd)],
      ),
      /credit_entries_period_reason_unique/,
    );
  });

  it('a plan change mid-period: limits at once, credits unchanged; the next renewal grants the new allocation', async () => {
    const org = await services().organisations.create({ name: 'Upgrading', plan: 'free' });
    await consume(org.id, 10);
    const changed = await services().organisations.setPlan(org.id, 'starter');
    assert.equal(changed!.monthlyCredits, 1000);
    assert.deepEqual(await services().credits.balance(org.id), { plan: 40, payg: 0, remaining: 40 });
    const { periodEnd } = (await services().planPeriods.current(org.id))!;
    const renewal = await services().planPeriods.renew(org.id, periodEnd);
    assert.equal(renewal!.expired, 40);
    assert.equal(renewal!.granted, 1000);
    assert.deepEqual(await services().credits.balance(org.id), { plan: 1000, payg: 0, remaining: 1000 });
  });

  it('enterprise: monthly credits per organisation (default: the credits it starts with), refused on other plans', async () => {
    const s = services();
    const started = await s.organisations.create({ name: 'Contract', plan: 'enterprise', credits: 800 });
    assert.equal(started.monthlyCredits, 800);
    const explicit = await s.organisations.create({ name: 'Contract 2', plan: 'enterprise', monthlyCredits: 300 });
    assert.equal(explicit.monthlyCredits, 300);
    assert.deepEqual(await s.credits.balance(explicit.id), { plan: 300, payg: 0, remaining: 300 });
    await assert.rejects(
      s.organisations.create({ name: 'Not enterprise', plan: 'pro', monthlyCredits: 5 }),
      /enterprise only/,
    );
    assert.equal(
      (await services().organisations.setPlan(started.id, 'enterprise', { monthlyCredits: 900 }))!.monthlyCredits,
      900,
    );
    assert.equal((await services().organisations.setPlan(started.id, 'pro'))!.monthlyCredits, 20_000);
    // To enterprise without a figure: the monthly credits it had.
    assert.equal((await services().organisations.setPlan(started.id, 'enterprise'))!.monthlyCredits, 20_000);
    await assert.rejects(
      services().organisations.setPlan(started.id, 'scale', { monthlyCredits: 1 }),
      /enterprise only/,
    );
    await makeDue(explicit.id);
    const renewal = await services().planPeriods.renew(
      explicit.id,
      (await services().planPeriods.current(explicit.id))!.periodEnd,
    );
    assert.equal(renewal!.granted, 300);
  });

  it('nothing to expire and nothing to grant (enterprise without plan credits): one allocation entry of 0', async () => {
    const org = await services().organisations.create({ name: 'Enterprise', plan: 'enterprise', credits: 0 });
    await services().credits.grant(org.id, 30, 'payg');
    const { periodEnd } = (await services().planPeriods.current(org.id))!;
    const renewal = await services().planPeriods.renew(org.id, periodEnd);
    assert.equal(renewal!.renewed, true);
    assert.deepEqual(
      (await ledger(org.id)).map((e) => [e.reason, e.plan_delta]),
      [['plan_allocation', 0]],
    );
    assert.deepEqual(await services().credits.balance(org.id), { plan: 0, payg: 30, remaining: 30 });
  });

  it('an organisation that no longer exists: no period, no renewal', async () => {
    assert.equal(await services().planPeriods.current('org_gone'), null);
    assert.equal(await services().planPeriods.renew('org_gone', new Date().toISOString()), null);
  });
});
