import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { CreditService } from '../credits/credit.service.js';
import { Organisation, type PlanTier } from './organisation.entity.js';
import type { PlanPeriodService } from './plan-period.service.js';
import { limitsFor, MAX_BATCH_IMAGES, PLANS, type PlanLimits, type RateLimitCategory } from './plans.js';

/** An enterprise contract's overrides; what is left out keeps its current value. */
export type CustomLimitsInput = Partial<Record<RateLimitCategory, number>> & { maxBatchSize?: number };

export type CreateOrganisationInput = {
  name: string;
  plan?: PlanTier;
  credits?: number;
  /** Enterprise only (the other plans take the table): plan credits granted each period. */
  monthlyCredits?: number;
  customLimits?: Organisation['customLimits'];
};

/** Monthly credits are set per organisation on enterprise only; the other plans take the plan table. */
function assertMonthlyCreditsAllowed(plan: PlanTier, monthlyCredits: number | undefined) {
  if (monthlyCredits !== undefined && plan !== 'enterprise')
    throw new ConflictError(
      `the ${plan} plan grants ${PLANS[plan].monthlyCredits} credits a month: monthly credits are set per organisation on enterprise only.`,
    );
}

export class OrganisationService {
  constructor(
    private readonly em: EntityManager,
    private readonly credits: CreditService,
    private readonly planPeriods: PlanPeriodService,
  ) {}

  async create(input: CreateOrganisationInput): Promise<Organisation> {
    const plan = input.plan ?? 'free';
    assertMonthlyCreditsAllowed(plan, input.monthlyCredits);
    // Enterprise: the contract's monthly credits, or else the credits it starts with (so they are
    // renewed, not expired at the first period end).
    const monthlyCredits =
      plan === 'enterprise' ? (input.monthlyCredits ?? input.credits ?? 0) : PLANS[plan].monthlyCredits;
    // The first period starts now; its end fixes the organisation's day of month (plan-period.ts).
    // The worker's relay starts the plan-period workflow that renews it (PlanPeriodCommands).
    const now = new Date();
    const org = this.em.create(Organisation, {
      id: newId('organisation'),
      name: input.name,
      plan,
      monthlyCredits,
      createdAt: now,
      periodStart: now,
      periodEnd: this.planPeriods.firstPeriodEnd(now),
      customLimits: input.customLimits ?? null,
    });
    await this.em.flush();
    const credits = input.credits ?? monthlyCredits;
    if (credits > 0) await this.credits.grant(org.id, credits, 'plan', 'initial allocation');
    await this.em.refresh(org);
    return org;
  }

  async get(id: string): Promise<Organisation | null> {
    return this.em.findOne(Organisation, { id });
  }

  async list(): Promise<Organisation[]> {
    return this.em.find(Organisation, {}, { orderBy: { id: 'asc' } });
  }

  /**
   * Rate limits and batch size change at once; the period and its plan credits stay as they are, and
   * the next renewal grants the new plan's monthly allocation (decisions.md, Plan periods). On
   * enterprise that is `monthlyCredits` if given, else what the organisation had.
   */
  async setPlan(id: string, plan: PlanTier, opts: { monthlyCredits?: number } = {}): Promise<Organisation | null> {
    assertMonthlyCreditsAllowed(plan, opts.monthlyCredits);
    const org = await this.get(id);
    if (!org) return null;
    org.plan = plan;
    org.monthlyCredits =
      plan === 'enterprise' ? (opts.monthlyCredits ?? org.monthlyCredits) : PLANS[plan].monthlyCredits;
    await this.em.flush();
    return org;
  }

  /**
   * Sets an enterprise organisation's custom limits (rate limits per minute, batch size), merged over
   * those already set. Other plans take their plan's table: a custom limit there would be silently
   * lost on the next plan change, so it is refused (decisions.md, Operator CLI).
   */
  async setLimits(
    id: string,
    input: CustomLimitsInput,
  ): Promise<{ org: Organisation; custom: NonNullable<Organisation['customLimits']>; effective: PlanLimits }> {
    const org = await this.get(id);
    if (!org) throw new NotFoundError('organisation', id);
    if (org.plan !== 'enterprise')
      throw new ConflictError(
        `${id} is on the ${org.plan} plan: custom limits are for enterprise organisations (org:set-plan --plan enterprise first).`,
      );
    if (input.maxBatchSize !== undefined && input.maxBatchSize > MAX_BATCH_IMAGES)
      throw new ConflictError(`maxBatchSize cannot exceed ${MAX_BATCH_IMAGES} images.`);
    const rateLimits = { ...org.customLimits?.rateLimits };
    for (const category of ['analyses', 'reads', 'writes'] as const)
      if (input[category] !== undefined) rateLimits[category] = input[category];
    const custom = {
      ...org.customLimits,
      rateLimits,
      ...(input.maxBatchSize !== undefined ? { maxBatchSize: input.maxBatchSize } : {}),
    };
    org.customLimits = custom;
    await this.em.flush();
    return { org, custom, effective: limitsFor(org.plan, custom) };
  }
}
