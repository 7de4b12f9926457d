import type { FilterQuery } from '@mikro-orm/postgresql';
import { escapeLike } from '../../db/like.js';
import { sql } from '../../db/sql.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Page } from '../../lib/pagination.js';
import type { InventoryItem } from './inventory-item.entity.js';
import type { CreateInventoryInput } from './inventory.schemas.js';

export type InventoryFilters = { brand?: string; category?: string; sku?: string; projectId?: string };

const UPSERT_COLUMNS = [
  'project_id',
  'brand',
  'name',
  'description',
  'category',
  'subcategory',
  'size_value',
  'size_unit',
  'expected_price',
  'currency',
  'image_url',
  'upc',
] as const;

export class InventoryRepository extends TenantRepository<InventoryItem> {
  list(organisationId: string, filters: InventoryFilters, page: Page) {
    const where: FilterQuery<InventoryItem> = {};
    if (filters.brand) where.brand = { $ilike: escapeLike(filters.brand) };
    if (filters.category) where.category = filters.category;
    if (filters.sku) where.sku = filters.sku;
    if (filters.projectId) where.projectId = filters.projectId;
    return this.page(organisationId, where, page);
  }

  findBySku(organisationId: string, sku: string) {
    return this.findOne({ organisationId, sku });
  }

  /**
   * One statement for the whole batch: insert new SKUs, replace the fields of existing ones.
   * `xmax = 0` is true only for rows this statement inserted.
   */
  async upsertBySku(organisationId: string, items: (CreateInventoryInput & { id: string })[]) {
    const knex = this.getEntityManager().getKnex();
    const now = new Date();
    const rows = items.map((i) => ({
      id: i.id,
      organisation_id: organisationId,
      project_id: i.projectId ?? null,
      sku: i.sku,
      brand: i.brand,
      name: i.name,
      description: i.description ?? null,
      category: i.category ?? null,
      subcategory: i.subcategory ?? null,
      size_value: i.sizeValue ?? null,
      size_unit: i.sizeUnit ?? null,
      expected_price: i.expectedPrice ?? null,
      currency: i.currency ?? null,
      image_url: i.imageUrl ?? null,
      upc: i.upc ?? null,
      created_at: now,
      updated_at: now,
    }));
    const result: { id: string; sku: string; inserted: boolean }[] = await knex('inventory_items')
      .insert(rows)
      .onConflict(['organisation_id', 'sku'])
      .merge([...UPSERT_COLUMNS, 'updated_at'])
      .returning(['id', 'sku', knex.raw('(xmax = 0) as inserted')]);
    return result;
  }

  /**
   * The organisation's catalogue's version: its number of items, latest change and a sum of hashes
   * of each item's id and change time (one aggregate over the organisation's rows).
   */
  async catalogueVersion(organisationId: string): Promise<string> {
    const [{ version }] = (await sql<{ version: string }>(
      this.getEntityManager(),
      `select count(*) || ':' || coalesce(max(updated_at)::text, '') || ':' || coalesce(sum(hashtext(id || updated_at::text)), 0) as version
         from inventory_items where organisation_id = ?`,
      [organisationId],
    )) as [{ version: string }];
    return version;
  }
}
