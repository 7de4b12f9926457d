import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../lib/ids.js';
import type { CreditService } from '../credits/credit.service.js';
import { Organisation, type PlanTier } from './organisation.entity.js';
import { PLANS } from './plans.js';

export type CreateOrganisationInput = {
  name: string;
  plan?: PlanTier;
  credits?: number;
  customLimits?: Organisation['customLimits'];
};

export class OrganisationService {
  constructor(
    private readonly em: EntityManager,
    private readonly credits: CreditService,
  ) {}

  async create(input: CreateOrganisationInput): Promise<Organisation> {
    const plan = input.plan ?? 'free';
    const periodEnd = new Date();
    periodEnd.setUTCMonth(periodEnd.getUTCMonth() + 1);
    const org = this.em.create(Organisation, {
      id: newId('organisation'),
      name: input.name,
      plan,
      monthlyCredits: PLANS[plan].monthlyCredits,
      periodEnd,
      customLimits: input.customLimits ?? null,
    });
    await this.em.flush();
    const credits = input.credits ?? PLANS[plan].monthlyCredits;
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

  async setPlan(id: string, plan: PlanTier): Promise<Organisation | null> {
    const org = await this.get(id);
    if (!org) return null;
    org.plan = plan;
    org.monthlyCredits = PLANS[plan].monthlyCredits;
    await this.em.flush();
    return org;
  }
}
