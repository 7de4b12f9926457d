import type { PlanTier } from '../../src/modules/organisations/organisation.entity.js';
import type { Runtime } from '../../src/runtime.js';
import { createServices } from '../../src/services.js';

export type TestOrg = { id: string; keys: { read: string; write: string; admin: string } };

let counter = 0;

/** A fresh organisation with one key of each role; tests never share tenants. */
/**
 * Without a plan the organisation is enterprise with limits no functional test reaches; the
 * rate-limit tests choose a real plan.
 */
export async function createTestOrg(
  runtime: Runtime,
  opts: { plan?: PlanTier; credits?: number; name?: string; maxBatchSize?: number } = {},
): Promise<TestOrg> {
  // The runtime's configuration (PLAN_PERIOD_MS among others), not the environment's.
  const s = createServices(runtime.orm.em.fork(), { config: runtime.config });
  const org = await s.organisations.create({
    name: opts.name ?? `Test org ${++counter}`,
    plan: opts.plan ?? 'enterprise',
    credits: opts.credits ?? 0,
    customLimits: opts.plan
      ? null
      : { rateLimits: { analyses: 100_000, reads: 100_000, writes: 100_000 }, maxBatchSize: opts.maxBatchSize ?? 200 },
  });
  const [read, write, admin] = await Promise.all(
    (['read', 'write', 'admin'] as const).map((role) =>
      createServices(runtime.orm.em.fork()).apiKeys.create(org.id, role, `${role} key`),
    ),
  );
  return { id: org.id, keys: { read: read!.secret, write: write!.secret, admin: admin!.secret } };
}
