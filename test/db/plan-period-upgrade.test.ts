import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { register } from 'tsx/esm/api';
import { initORM, type Orm } from '../../src/db/orm.js';
import { sql } from '../../src/db/sql.js';
import { uniqueName } from '../helpers/fresh-database.js';

/**
 * The plan-period migrations on a database as it was before them: a database of this file's own
 * (on the test server), migrated up to the one before, given organisations, then migrated on.
 */
describe('the plan-period upgrade of existing organisations', () => {
  const name = uniqueName('plan_period_upgrade');
  const serverUrl = new URL(process.env.DATABASE_URL!);
  const adminUrl = Object.assign(new URL(serverUrl), { pathname: '/postgres' }).toString();
  const url = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();
  let orm: Orm;
  const admin = async (query: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(query);
    } finally {
      await client.end();
    }
  };

  before(async () => {
    // The migrator imports the migration files, TypeScript, by their paths; `npm test` runs this file
    // bundled, without tsx's loader (scripts/lib/own-code-bundles.ts), so it gets it here.
    register();
    await admin(`drop database if exists ${name} with (force)`);
    await admin(`create database ${name}`);
    orm = await initORM(url);
  });
  after(async () => {
    await orm.close();
    await admin(`drop database if exists ${name} with (force)`);
  });

  it('periods start at creation, every workflow is left for the relay, enterprise monthly credits from the initial allocation', async () => {
    const migrator = orm.getMigrator();
    await migrator.up({ to: 'Migration20261123050511' });
    const em = orm.em.fork();
    await sql(
      em,
      `insert into organisations (id, name, plan, plan_credits, payg_credits, monthly_credits, period_end, created_at, updated_at) values
        ('org_ent_old', 'Enterprise', 'enterprise', 700, 0, 0, '2026-09-01T10:00:00Z', '2026-08-01T10:00:00Z', now()),
        ('org_ent_none', 'Enterprise without credits', 'enterprise', 0, 0, 0, '2026-09-01T10:00:00Z', '2026-08-01T10:00:00Z', now()),
        ('org_growth', 'Growth', 'growth', 10, 3, 5000, null, '2026-08-15T08:00:00Z', now())`,
    );
    await sql(
      em,
      `insert into credit_entries (id, organisation_id, plan_delta, payg_delta, reason, note, created_at) values
        ('cre_initial', 'org_ent_old', 1000, 0, 'plan_allocation', 'initial allocation', '2026-08-01T10:00:00Z'),
        ('cre_later', 'org_ent_old', 50, 0, 'plan_allocation', null, '2026-08-10T10:00:00Z'),
        ('cre_growth', 'org_growth', 5000, 0, 'plan_allocation', 'initial allocation', '2026-08-15T08:00:00Z')`,
    );
    await migrator.up();

    const rows = await sql<{
      id: string;
      monthly_credits: number;
      period_start: string;
      period_end: string;
      plan_workflow_ensured_at: string | null;
      plan_credits: number;
      payg_credits: number;
    }>(
      orm.em.fork(),
      `select id, monthly_credits, period_start, period_end, plan_workflow_ensured_at, plan_credits, payg_credits
         from organisations order by id`,
    );
    assert.deepEqual(
      rows.map((r) => ({
        ...r,
        period_start: new Date(r.period_start).toISOString(),
        period_end: new Date(r.period_end).toISOString(),
      })),
      [
        {
          id: 'org_ent_none',
          monthly_credits: 0,
          period_start: '2026-08-01T10:00:00.000Z',
          period_end: '2026-09-01T10:00:00.000Z',
          plan_workflow_ensured_at: null,
          plan_credits: 0,
          payg_credits: 0,
        },
        {
          id: 'org_ent_old',
          monthly_credits: 1000,
          period_start: '2026-08-01T10:00:00.000Z',
          period_end: '2026-09-01T10:00:00.000Z',
          plan_workflow_ensured_at: null,
          plan_credits: 700,
          payg_credits: 0,
        },
        {
          id: 'org_growth',
          monthly_credits: 5000,
          period_start: '2026-08-15T08:00:00.000Z',
          period_end: '2026-09-15T08:00:00.000Z',
          plan_workflow_ensured_at: null,
          plan_credits: 10,
          payg_credits: 3,
        },
      ],
    );
  });
});
