import { z } from 'zod';
import { cursorParam, limitParam } from '../../lib/pagination.js';
import { currencyCode, freeText, httpUrl, singleLine } from '../../lib/validation.js';
import type { InventoryItem } from './inventory-item.entity.js';

export const money = z
  .number()
  .min(0)
  .max(9_999_999_999.99)
  .refine((v) => Math.round(v * 100) / 100 === v, 'At most two decimal places.');

const itemFields = {
  sku: singleLine(z.string().trim().min(1).max(100)).meta({
    description: 'Stock keeping unit code, unique in the organisation.',
    example: 'COKE-330-CAN',
  }),
  brand: singleLine(z.string().trim().min(1).max(200)).meta({ example: 'Coca-Cola' }),
  name: singleLine(z.string().trim().min(1).max(255)).meta({ example: 'Coca-Cola Classic 330ml can' }),
  description: freeText(z.string().max(2000)).nullable().optional(),
  category: singleLine(z.string().max(100)).nullable().optional().meta({ example: 'Beverages' }),
  subcategory: singleLine(z.string().max(100)).nullable().optional().meta({ example: 'Soft drinks' }),
  sizeValue: z.number().positive().max(1_000_000).nullable().optional().meta({ example: 330 }),
  sizeUnit: singleLine(z.string().max(20)).nullable().optional().meta({ example: 'ml' }),
  expectedPrice: money.nullable().optional().meta({ description: 'Expected retail price.', example: 1.29 }),
  currency: currencyCode.nullable().optional().meta({ example: 'GBP' }),
  imageUrl: httpUrl.nullable().optional(),
  upc: z
    .string()
    .regex(/^\d{6,14}$/, { message: 'Must be 6 to 14 digits (UPC-A, UPC-E, EAN-8, EAN-13 or GTIN-14).', abort: true })
    .max(14)
    .nullable()
    .optional()
    .meta({ example: '5449000000996' }),
  projectId: z.string().max(100).nullable().optional(),
};

export const createInventoryBody = z.strictObject(itemFields).meta({ id: 'CreateInventoryItemRequest' });
export const updateInventoryBody = z
  .strictObject({
    ...itemFields,
    sku: itemFields.sku.optional(),
    brand: itemFields.brand.optional(),
    name: itemFields.name.optional(),
  })
  .meta({ id: 'UpdateInventoryItemRequest' });
export const BULK_MAX = 1000;
export const bulkInventoryBody = z
  .strictObject({ items: z.array(createInventoryBody).min(1).max(BULK_MAX) })
  .superRefine((body, ctx) => {
    const seen = new Map<string, number>();
    body.items.forEach((item, i) => {
      const first = seen.get(item.sku);
      if (first !== undefined)
        ctx.addIssue({ code: 'custom', path: ['items', i, 'sku'], message: `Duplicate sku; also at items[${first}].` });
      else seen.set(item.sku, i);
    });
  })
  .meta({ id: 'BulkUpsertInventoryRequest' });
export type CreateInventoryInput = z.infer<typeof createInventoryBody>;
export type UpdateInventoryInput = z.infer<typeof updateInventoryBody>;

export const listInventoryQuery = z.strictObject({
  brand: z.string().max(200).optional().meta({ description: 'Case-insensitive exact match.' }),
  category: z.string().max(100).optional(),
  sku: z.string().max(100).optional().meta({ description: 'Exact match.' }),
  projectId: z.string().max(100).optional(),
  cursor: cursorParam,
  limit: limitParam(),
});
export type ListInventoryQuery = z.infer<typeof listInventoryQuery>;

export const inventoryItemSchema = z
  .object({
    id: z.string().meta({ example: 'inv_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    sku: z.string(),
    brand: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    category: z.string().nullable(),
    subcategory: z.string().nullable(),
    sizeValue: z.number().nullable(),
    sizeUnit: z.string().nullable(),
    expectedPrice: z.number().nullable(),
    currency: z.string().nullable(),
    imageUrl: z.string().nullable(),
    upc: z.string().nullable(),
    projectId: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'InventoryItem' });

export const bulkInventoryResultSchema = z
  .object({
    created: z.number().int(),
    updated: z.number().int(),
    items: z.array(z.object({ id: z.string(), sku: z.string(), result: z.enum(['created', 'updated']) })),
  })
  .meta({ id: 'BulkUpsertInventoryResult' });

export function serializeInventoryItem(i: InventoryItem): z.infer<typeof inventoryItemSchema> {
  return {
    id: i.id,
    sku: i.sku,
    brand: i.brand,
    name: i.name,
    description: i.description ?? null,
    category: i.category ?? null,
    subcategory: i.subcategory ?? null,
    sizeValue: i.sizeValue == null ? null : Number(i.sizeValue),
    sizeUnit: i.sizeUnit ?? null,
    expectedPrice: i.expectedPrice == null ? null : Number(i.expectedPrice),
    currency: i.currency ?? null,
    imageUrl: i.imageUrl ?? null,
    upc: i.upc ?? null,
    projectId: i.projectId ?? null,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}
