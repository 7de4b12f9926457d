import { z } from 'zod';
import { cursorParam, limitParam } from '../../lib/pagination.js';
import {
  CONFIDENCE_LEVELS,
  FIXTURE_TYPES,
  MATCH_STATUSES,
  SHELF_POSITIONS,
  SHELF_SECTIONS,
  type Product,
} from './product.entity.js';

export const productSchema = z
  .object({
    id: z.string().meta({ example: 'prd_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    analysisId: z.string(),
    placeId: z.string().nullable(),
    brand: z.string().nullable(),
    description: z.string().nullable(),
    units: z.number().int().meta({ description: 'Facings: the same product side by side.' }),
    sku: z.string().nullable(),
    upc: z.string().nullable(),
    category: z.string().nullable(),
    subcategory: z.string().nullable(),
    price: z.number().nullable(),
    discountedPrice: z.number().nullable(),
    currency: z.string().nullable(),
    onSale: z.boolean(),
    confidence: z.enum(CONFIDENCE_LEVELS),
    confidenceScore: z.number().min(0).max(1),
    shelfPosition: z.enum(SHELF_POSITIONS).nullable(),
    shelfSection: z.enum(SHELF_SECTIONS).nullable(),
    fixtureType: z.enum(FIXTURE_TYPES).nullable(),
    sizeValue: z.number().nullable(),
    sizeUnit: z.string().nullable(),
    matchedInventorySku: z.string().nullable(),
    matchStatus: z.enum(MATCH_STATUSES),
    box: z
      .object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() })
      .nullable()
      .meta({
        description:
          'Where the product is on the photo (upright): its top-left corner, width and height as fractions (0 to 1) of the photo; null when the engine does not locate products.',
        example: { x: 0.12, y: 0.4, width: 0.18, height: 0.22 },
      }),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Product' });

export const listProductsQuery = z.strictObject({
  brand: z.string().max(200).optional().meta({ description: 'Case-insensitive exact match.' }),
  category: z.string().max(100).optional(),
  analysisId: z.string().max(100).optional(),
  placeId: z.string().max(100).optional(),
  cursor: cursorParam,
  limit: limitParam(),
});
export type ListProductsQuery = z.infer<typeof listProductsQuery>;

const num = (v: string | number | null | undefined) => (v == null ? null : Number(v));

export function serializeProduct(p: Product): z.infer<typeof productSchema> {
  return {
    id: p.id,
    analysisId: p.analysisId,
    placeId: p.placeId ?? null,
    brand: p.brand ?? null,
    description: p.description ?? null,
    units: p.units,
    sku: p.sku ?? null,
    upc: p.upc ?? null,
    category: p.category ?? null,
    subcategory: p.subcategory ?? null,
    price: num(p.price),
    discountedPrice: num(p.discountedPrice),
    currency: p.currency ?? null,
    onSale: p.onSale,
    confidence: p.confidence,
    confidenceScore: Number(p.confidenceScore),
    shelfPosition: p.shelfPosition ?? null,
    shelfSection: p.shelfSection ?? null,
    fixtureType: p.fixtureType ?? null,
    sizeValue: num(p.sizeValue),
    sizeUnit: p.sizeUnit ?? null,
    matchedInventorySku: p.matchedInventorySku ?? null,
    matchStatus: p.matchStatus,
    box:
      p.boxX == null || p.boxY == null || p.boxWidth == null || p.boxHeight == null
        ? null
        : { x: Number(p.boxX), y: Number(p.boxY), width: Number(p.boxWidth), height: Number(p.boxHeight) },
    createdAt: p.createdAt.toISOString(),
  };
}
