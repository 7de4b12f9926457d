import type { EntityManager } from '@mikro-orm/postgresql';
import type { Priority } from '@temporalio/common';
import type { PlanTier } from './organisation.entity.js';
import { FAIRNESS_WEIGHTS } from './plans.js';
import { Organisation } from './organisation.entity.js';
import type { OrganisationRepository } from './organisation.repository.js';

/**
 * Where a workflow's tasks queue (docs/decisions.md, "Fair dispatch across organisations"):
 * `single` and `batch` are an organisation's two lanes on the analyses and recognition queues, so a
 * photo submitted on its own never waits behind a batch, its own or another's; `other` is the one
 * lane of the deliveries and tasks queues.
 */
export type DispatchLane = 'single' | 'batch' | 'other';

/**
 * A batch lane's weight against its organisation's single lane: bulk work gets half the share of
 * interactive work at the same plan, so single submissions go first without starving batches.
 */
const BATCH_SHARE = 0.5;

/** How long a process trusts a plan it read: a plan change reaches new starts within this. */
const PLAN_TTL_MS = 60_000;
/** Bound on the cache (one entry per organisation that started work within PLAN_TTL_MS). */
const MAX_CACHED = 10_000;
type PlanCache = Map<string, { plan: PlanTier; until: number }>;

async function planOf(em: EntityManager, plans: PlanCache, organisationId: string): Promise<PlanTier | undefined> {
  const now = Date.now();
  const cached = plans.get(organisationId);
  if (cached && cached.until > now) return cached.plan;
  const plan = await em.fork().getRepository<Organisation, OrganisationRepository>(Organisation).planOf(organisationId);
  if (!plan) return undefined;
  if (plans.size >= MAX_CACHED) plans.clear();
  plans.set(organisationId, { plan, until: now + PLAN_TTL_MS });
  return plan;
}

/**
 * The Temporal priority a workflow of `organisationId` starts with: its fairness key (the
 * organisation, and for a batch its batch lane) and its plan's weight. Children and activities
 * inherit it (a batch's analyses, their recognition passes, a delivery's attempts). No priority
 * key: priority levels are strict, so any level given to single submissions would let one
 * organisation's stream of singles hold every other organisation's batches back without bound.
 * A plan that cannot be read (the database unreachable for a moment) gives the default weight:
 * the start matters more than its share.
 */
export class DispatchPriorities {
  /** The plans this process read (src/commands.ts builds one DispatchPriorities for its starters). */
  private readonly plans: PlanCache = new Map();

  constructor(private readonly em: EntityManager) {}

  async of(organisationId: string, lane: DispatchLane): Promise<Priority> {
    const plan = await planOf(this.em, this.plans, organisationId).catch(() => undefined);
    const weight = plan ? FAIRNESS_WEIGHTS[plan] : 1;
    return lane === 'batch'
      ? { fairnessKey: `${organisationId}/batch`, fairnessWeight: weight * BATCH_SHARE }
      : { fairnessKey: organisationId, fairnessWeight: weight };
  }
}
