import type { FilterQuery } from '@mikro-orm/postgresql';
import { escapeLike } from '../../db/like.js';
import { sql } from '../../db/sql.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Page } from '../../lib/pagination.js';
import type { Product } from './product.entity.js';
import type { ShareOfShelfQuery } from '../reports/report.schemas.js';

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

  /** Share of shelf: units and product count per brand (null: Unknown) of the period, most units first. */
  brandUnits(
    organisationId: string,
    periodStart: Date,
    periodEnd: Date,
    q: Pick<ShareOfShelfQuery, 'brands' | 'categories' | 'countries' | 'channels' | 'projectId'>,
  ): Promise<{ brand: string; units: number; product_count: number }[]> {
    const where = ['p.organisation_id = ?', 'p.created_at >= ?', 'p.created_at < ?'];
    const params: unknown[] = [organisationId, periodStart, periodEnd];
    const needsPlace = !!(q.projectId || q.countries?.length || q.channels?.length);
    // One placeholder per value: the driver expands array bindings itself.
    const oneOf = (column: string, values: string[]) => {
      where.push(`${column} in (${values.map(() => '?').join(', ')})`);
      params.push(...values);
    };
    if (q.brands?.length)
      oneOf(
        `lower(coalesce(p.brand, 'Unknown'))`,
        q.brands.map((b) => b.toLowerCase()),
      );
    if (q.categories?.length) oneOf('p.category', q.categories);
    if (q.countries?.length)
      oneOf(
        'pl.country_code',
        q.countries.map((c) => c.toUpperCase()),
      );
    if (q.channels?.length) oneOf('pl.channel', q.channels);
    if (q.projectId) {
      where.push('pl.project_id = ?');
      params.push(q.projectId);
    }
    return sql<{ brand: string; units: number; product_count: number }>(
      this.getEntityManager(),
      `select coalesce(p.brand, 'Unknown') as brand, sum(p.units)::int as units, count(*)::int as product_count
         from products p ${needsPlace ? 'join places pl on pl.id = p.place_id' : ''}
        where ${where.join(' and ')}
        group by 1 order by 2 desc, 1`,
      params,
    );
  }
}
