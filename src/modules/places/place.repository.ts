import type { FilterQuery } from '@mikro-orm/postgresql';
import { containsPattern } from '../../db/like.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Page } from '../../lib/pagination.js';
import type { Place } from './place.entity.js';

export type PlaceFilters = { countryCode?: string; channel?: string; search?: string; projectId?: string };

export class PlaceRepository extends TenantRepository<Place> {
  list(organisationId: string, filters: PlaceFilters, page: Page) {
    const where: FilterQuery<Place> = {};
    if (filters.countryCode) where.countryCode = filters.countryCode;
    if (filters.channel) where.channel = filters.channel;
    if (filters.projectId) where.projectId = filters.projectId;
    if (filters.search) {
      const pattern = containsPattern(filters.search);
      where.$or = [{ title: { $ilike: pattern } }, { address: { $ilike: pattern } }];
    }
    return this.page(organisationId, where, page);
  }
}
