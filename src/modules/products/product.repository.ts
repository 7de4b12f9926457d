import type { FilterQuery } from '@mikro-orm/postgresql';
import { escapeLike } from '../../db/like.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Page } from '../../lib/pagination.js';
import type { Product } from './product.entity.js';

export type ProductFilters = { brand?: string; category?: string; analysisId?: string; placeId?: string };

export class ProductRepository extends TenantRepository<Product> {
  list(organisationId: string, filters: ProductFilters, page: Page) {
    const where: FilterQuery<Product> = {};
    if (filters.brand) where.brand = { $ilike: escapeLike(filters.brand) };
    if (filters.category) where.category = filters.category;
    if (filters.analysisId) where.analysisId = filters.analysisId;
    if (filters.placeId) where.placeId = filters.placeId;
    return this.page(organisationId, where, page);
  }
}
