import type { FilterQuery } from '@mikro-orm/postgresql';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Page } from '../../lib/pagination.js';
import type { Analysis, AnalysisStatus } from './analysis.entity.js';

export type AnalysisFilters = { status?: AnalysisStatus; externalId?: string; placeId?: string };

export class AnalysisRepository extends TenantRepository<Analysis> {
  list(organisationId: string, filters: AnalysisFilters, page: Page) {
    const where: FilterQuery<Analysis> = {};
    if (filters.status) where.status = filters.status;
    if (filters.externalId) where.externalId = filters.externalId;
    if (filters.placeId) where.placeId = filters.placeId;
    return this.page(organisationId, where, page);
  }

}
