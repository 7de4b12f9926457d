import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { ProductRepository } from './product.repository.js';

const p = defineEntity.properties;

export const CONFIDENCE_LEVELS = ['high', 'medium', 'low'] as const;
export const SHELF_POSITIONS = ['top', 'eye-level', 'middle', 'bottom'] as const;
export const SHELF_SECTIONS = ['left', 'center', 'right'] as const;
export const FIXTURE_TYPES = ['shelf', 'fridge', 'freezer', 'endcap', 'floor-display', 'checkout', 'other'] as const;
export const MATCH_STATUSES = ['matched', 'probable', 'unmatched'] as const;

export const Product = defineEntity({
  name: 'Product',
  tableName: 'products',
  repository: () => ProductRepository,
  properties: {
    id: p.string().primary(),
    organisationId: p.string(),
    analysisId: p.string().index(),
    /** Copied from the analysis so product filters and reports need no join. */
    placeId: p.string().nullable(),
    /** Position in the merged result; with analysisId it makes a retried write a no-op. */
    position: p.integer(),
    brand: p.string().nullable(),
    description: p.text().nullable(),
    units: p.integer().default(1),
    sku: p.string().nullable(),
    upc: p.string().nullable(),
    category: p.string().nullable(),
    subcategory: p.string().nullable(),
    price: p.decimal('string').precision(12).scale(2).nullable(),
    discountedPrice: p.decimal('string').precision(12).scale(2).nullable(),
    currency: p.string().length(3).nullable(),
    onSale: p.boolean().default(false),
    confidence: p.enum([...CONFIDENCE_LEVELS]),
    confidenceScore: p.double(),
    shelfPosition: p.enum([...SHELF_POSITIONS]).nullable(),
    shelfSection: p.enum([...SHELF_SECTIONS]).nullable(),
    fixtureType: p.enum([...FIXTURE_TYPES]).nullable(),
    sizeValue: p.double().nullable(),
    sizeUnit: p.string().nullable(),
    matchedInventorySku: p.string().nullable(),
    matchStatus: p.enum([...MATCH_STATUSES]),
    /** Where it is on the photo (fractions of its width and height; RecognizedProduct.box); null when not located. */
    boxX: p.double().nullable(),
    boxY: p.double().nullable(),
    boxWidth: p.double().nullable(),
    boxHeight: p.double().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [
    { properties: ['organisationId', 'id'], name: 'products_org_id_index' },
    { properties: ['organisationId', 'placeId'], name: 'products_org_place_id_index' },
    { properties: ['organisationId', 'category'], name: 'products_org_category_index' },
    { properties: ['organisationId', 'createdAt'], name: 'products_org_created_at_index' },
  ],
  uniques: [{ properties: ['analysisId', 'position'], name: 'products_analysis_position_unique' }],
});
export type Product = InferEntity<typeof Product>;
