import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { OrderRepository } from './order.repository.js';

const p = defineEntity.properties;

export const ORDER_STATUSES = ['draft', 'pending', 'confirmed', 'shipped', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const ORDER_TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  draft: ['pending', 'cancelled'],
  pending: ['confirmed', 'cancelled'],
  confirmed: ['shipped', 'cancelled'],
  shipped: ['delivered'],
  delivered: [],
  cancelled: [],
};
export const ORDER_SOURCE_TYPES = ['manual', 'analysis', 'alert'] as const;

export const Order = defineEntity({
  name: 'Order',
  tableName: 'orders',
  repository: () => OrderRepository,
  properties: {
    ...tenantProperties,
    orderNumber: p.string(),
    status: p.enum([...ORDER_STATUSES]),
    orderDate: p.string().length(10),
    supplierName: p.string().nullable(),
    customerName: p.string().nullable(),
    accountId: p.string().nullable(),
    storeId: p.string().nullable(),
    expectedDeliveryDate: p.string().length(10).nullable(),
    actualDeliveryDate: p.datetime().nullable(),
    currency: p.string().length(3),
    taxLabel: p.string().nullable(),
    taxRate: p.decimal('string').precision(5).scale(2),
    subtotal: p.decimal('string').precision(14).scale(2),
    tax: p.decimal('string').precision(14).scale(2),
    total: p.decimal('string').precision(14).scale(2),
    notes: p.text().nullable(),
    sourceType: p.enum([...ORDER_SOURCE_TYPES]),
  },
  indexes: [{ properties: ['organisationId', 'id'], name: 'orders_org_id_index' }],
  uniques: [{ properties: ['organisationId', 'orderNumber'], name: 'orders_org_number_unique' }],
});
export type Order = InferEntity<typeof Order>;

export const OrderLine = defineEntity({
  name: 'OrderLine',
  tableName: 'order_lines',
  properties: {
    id: p.string().primary(),
    orderId: p.string().index(),
    position: p.integer(),
    sku: p.string().nullable(),
    name: p.string().nullable(),
    quantity: p.decimal('string').precision(12).scale(3),
    expectationId: p.string().nullable(),
    unitPrice: p.decimal('string').precision(14).scale(2),
    taxPercent: p.decimal('string').precision(5).scale(2),
    taxAmount: p.decimal('string').precision(14).scale(2),
    totalPrice: p.decimal('string').precision(14).scale(2),
  },
});
export type OrderLine = InferEntity<typeof OrderLine>;

/** The next order number of each organisation: one row, bumped in the creating transaction. */
export const OrderCounter = defineEntity({
  name: 'OrderCounter',
  tableName: 'order_counters',
  properties: {
    organisationId: p.string().primary(),
    lastNumber: p.integer(),
  },
});
