import { z } from 'zod';
import { cursorParam, limitParam } from '../../lib/pagination.js';
import { currencyCode, freeText, isoDate, singleLine } from '../../lib/validation.js';
import { money } from '../inventory/inventory.schemas.js';
import { ORDER_SOURCE_TYPES, ORDER_STATUSES, type Order, type OrderLine } from './order.entity.js';

const percent = z
  .number()
  .min(0)
  .max(100)
  .refine((v) => Math.round(v * 100) / 100 === v, 'At most two decimal places.');

export const orderLineInput = z
  .strictObject({
    quantity: z
      .number()
      .positive()
      .max(1_000_000)
      .refine((v) => Math.round(v * 1000) / 1000 === v, 'At most three decimal places.')
      .meta({ example: 12 }),
    inventoryItemId: z
      .string()
      .max(100)
      .optional()
      .meta({ description: 'Inventory item (inv_); fills sku and name when they are not given.' }),
    sku: singleLine(z.string().max(100)).optional(),
    name: singleLine(z.string().max(255)).optional(),
    unitPrice: money.meta({ example: 1.29 }),
    taxPercent: percent.optional().meta({ description: "Defaults to the order's taxRate." }),
  })
  .refine((l) => l.inventoryItemId || l.sku || l.name, 'Give inventoryItemId, sku or name.')
  .meta({ id: 'OrderLineInput' });

export const createOrderBody = z
  .strictObject({
    supplierName: singleLine(z.string().trim().min(1).max(200)).optional().meta({ example: 'Brightwell Foods' }),
    customerName: singleLine(z.string().max(200)).optional(),
    accountId: z.string().max(100).optional(),
    orderDate: isoDate.optional().meta({ description: 'YYYY-MM-DD; today (UTC) by default.' }),
    status: z.enum(['draft', 'pending', 'confirmed']).default('draft'),
    currency: currencyCode.default('GBP'),
    storeId: z.string().max(100).optional().meta({ description: 'Place (pl_) the order is for.' }),
    notes: freeText(z.string().max(5000)).optional(),
    taxRate: percent.default(0),
    taxLabel: singleLine(z.string().max(50)).optional().meta({ example: 'VAT' }),
    sourceType: z.enum(ORDER_SOURCE_TYPES).default('manual'),
    items: z.array(orderLineInput).max(500).default([]),
  })
  .meta({ id: 'CreateOrderRequest' });
export type CreateOrderInput = z.infer<typeof createOrderBody>;

export const updateOrderBody = z
  .strictObject({
    supplierName: singleLine(z.string().trim().min(1).max(200)).optional(),
    expectedDeliveryDate: isoDate.nullable().optional(),
    notes: freeText(z.string().max(5000)).nullable().optional(),
    status: z.enum(ORDER_STATUSES).optional(),
    items: z
      .array(orderLineInput)
      .max(500)
      .optional()
      .meta({ description: 'Replaces the lines; only while draft or pending.' }),
  })
  .meta({ id: 'UpdateOrderRequest' });
export type UpdateOrderInput = z.infer<typeof updateOrderBody>;

export const listOrdersQuery = z.strictObject({
  status: z.enum(ORDER_STATUSES).optional(),
  supplierName: z.string().max(200).optional().meta({ description: 'Partial, case-insensitive.' }),
  storeId: z.string().max(100).optional(),
  cursor: cursorParam,
  limit: limitParam(),
});

const num = (v: string | null | undefined) => (v == null ? null : Number(v));

export const orderLineSchema = z
  .object({
    id: z.string(),
    sku: z.string().nullable(),
    name: z.string().nullable(),
    quantity: z.number(),
    expectationId: z.string().nullable(),
    unitPrice: z.number(),
    taxPercent: z.number(),
    taxAmount: z.number(),
    totalPrice: z.number(),
  })
  .meta({ id: 'OrderLine' });
export const orderSchema = z
  .object({
    id: z.string().meta({ example: 'ord_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    orderNumber: z.string().meta({ example: 'PO-000042' }),
    status: z.enum(ORDER_STATUSES),
    orderDate: z.string(),
    createdAt: z.iso.datetime(),
    supplierName: z.string().nullable(),
    customerName: z.string().nullable(),
    accountId: z.string().nullable(),
    storeId: z.string().nullable(),
    expectedDeliveryDate: z.string().nullable(),
    total: z.number(),
    currency: z.string(),
  })
  .meta({ id: 'Order' });
export const orderDetailSchema = orderSchema
  .extend({
    items: z.array(orderLineSchema),
    actualDeliveryDate: z.iso.datetime().nullable(),
    subtotal: z.number(),
    taxLabel: z.string().nullable(),
    taxRate: z.number(),
    tax: z.number(),
    notes: z.string().nullable(),
    sourceType: z.enum(ORDER_SOURCE_TYPES),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'OrderDetail' });

export function serializeOrder(o: Order): z.infer<typeof orderSchema> {
  return {
    id: o.id,
    orderNumber: o.orderNumber,
    status: o.status,
    orderDate: o.orderDate,
    createdAt: o.createdAt.toISOString(),
    supplierName: o.supplierName ?? null,
    customerName: o.customerName ?? null,
    accountId: o.accountId ?? null,
    storeId: o.storeId ?? null,
    expectedDeliveryDate: o.expectedDeliveryDate ?? null,
    total: Number(o.total),
    currency: o.currency,
  };
}

export function serializeOrderDetail(o: Order, lines: OrderLine[]): z.infer<typeof orderDetailSchema> {
  return {
    ...serializeOrder(o),
    items: lines.map((l) => ({
      id: l.id,
      sku: l.sku ?? null,
      name: l.name ?? null,
      quantity: Number(l.quantity),
      expectationId: l.expectationId ?? null,
      unitPrice: Number(l.unitPrice),
      taxPercent: Number(l.taxPercent),
      taxAmount: Number(l.taxAmount),
      totalPrice: Number(l.totalPrice),
    })),
    actualDeliveryDate: o.actualDeliveryDate ? o.actualDeliveryDate.toISOString() : null,
    subtotal: num(o.subtotal)!,
    taxLabel: o.taxLabel ?? null,
    taxRate: Number(o.taxRate),
    tax: num(o.tax)!,
    notes: o.notes ?? null,
    sourceType: o.sourceType,
    updatedAt: o.updatedAt.toISOString(),
  };
}
