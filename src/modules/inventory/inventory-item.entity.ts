import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { InventoryRepository } from './inventory.repository.js';

const p = defineEntity.properties;

export const InventoryItem = defineEntity({
  name: 'InventoryItem',
  tableName: 'inventory_items',
  repository: () => InventoryRepository,
  properties: {
    ...tenantProperties,
    projectId: p.string().nullable().index(),
    sku: p.string(),
    brand: p.string(),
    name: p.string(),
    description: p.text().nullable(),
    category: p.string().nullable(),
    subcategory: p.string().nullable(),
    sizeValue: p.double().nullable(),
    sizeUnit: p.string().nullable(),
    /** Money is exact: numeric(12,2), read as a string and converted at the edge. */
    expectedPrice: p.decimal('string').precision(12).scale(2).nullable(),
    currency: p.string().length(3).nullable(),
    imageUrl: p.text().nullable(),
    upc: p.string().nullable().index(),
  },
  uniques: [{ properties: ['organisationId', 'sku'], name: 'inventory_items_org_sku_unique' }],
  indexes: [{ properties: ['organisationId', 'id'], name: 'inventory_items_org_id_index' }],
});
export type InventoryItem = InferEntity<typeof InventoryItem>;
