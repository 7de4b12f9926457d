import { LockMode } from '@mikro-orm/core';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { containsPattern } from '../../db/like.js';
import {
  ConflictError,
  InvalidTransitionError,
  NotFoundError,
  ValidationError,
  invalidReferences,
  unknownReference,
} from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import { InventoryItem } from '../inventory/inventory-item.entity.js';
import { Account } from '../accounts/account.entity.js';
import { Place } from '../places/place.entity.js';
import { centsToString, lineAmounts, toScaled } from './money.js';
import { ORDER_TRANSITIONS, Order, OrderLine, type OrderStatus } from './order.entity.js';
import type { CreateOrderInput, UpdateOrderInput } from './order.schemas.js';
import type { OrderRepository } from './order.repository.js';

type LineInput = NonNullable<UpdateOrderInput['items']>[number];

/** The largest amount numeric(14,2) holds: 999,999,999,999.99. */
const MAX_AMOUNT_CENTS = 10n ** 14n - 1n;

export class OrderService {
  readonly repo: OrderRepository;

  constructor(private readonly em: EntityManager) {
    this.repo = em.getRepository<Order, OrderRepository>(Order);
  }

  /** Resolves inventory references and computes every amount; the client's totals are never trusted. */
  private async buildLines(
    em: EntityManager,
    organisationId: string,
    orderId: string,
    items: LineInput[],
    taxRate: number,
  ) {
    const ids = [...new Set(items.map((i) => i.inventoryItemId).filter((i): i is string => !!i))];
    const found = new Map(
      ids.length ? (await em.find(InventoryItem, { organisationId, id: { $in: ids } })).map((i) => [i.id, i]) : [],
    );
    const issues = items.flatMap((item, i) =>
      item.inventoryItemId && !found.has(item.inventoryItemId)
        ? [{ field: `items[${i}].inventoryItemId`, message: `No inventory item with id '${item.inventoryItemId}'.` }]
        : [],
    );
    if (issues.length)
      throw new ValidationError(`Invalid body: ${issues.map((x) => `${x.field}: ${x.message}`).join('; ')}`, issues);
    let subtotal = 0n;
    let tax = 0n;
    const lines = items.map((item, position) => {
      const inv = item.inventoryItemId ? found.get(item.inventoryItemId) : undefined;
      const taxPercent = item.taxPercent ?? taxRate;
      const amounts = lineAmounts(item.quantity, item.unitPrice, taxPercent);
      subtotal += amounts.net;
      tax += amounts.tax;
      return {
        id: newId('orderLine'),
        orderId,
        position,
        sku: item.sku ?? inv?.sku ?? null,
        name: item.name ?? inv?.name ?? null,
        quantity: String(item.quantity),
        expectationId: item.inventoryItemId ?? null,
        unitPrice: item.unitPrice.toFixed(2),
        taxPercent: taxPercent.toFixed(2),
        taxAmount: centsToString(amounts.tax),
        totalPrice: centsToString(amounts.total),
      };
    });
    // Each field is bounded, but products and sums of bounded fields can still pass numeric(14,2):
    // refuse them here (422 on the field) rather than let the insert fail (500).
    const tooLarge = [
      ...lines.flatMap((l, i) =>
        toScaled(l.totalPrice, 2) > MAX_AMOUNT_CENTS
          ? [
              {
                field: `items[${i}]`,
                message: `The line total ${l.totalPrice} is above ${centsToString(MAX_AMOUNT_CENTS)}.`,
                code: 'too_big',
              },
            ]
          : [],
      ),
      ...(subtotal + tax > MAX_AMOUNT_CENTS
        ? [{ field: 'items', message: `The order total is above ${centsToString(MAX_AMOUNT_CENTS)}.`, code: 'too_big' }]
        : []),
    ];
    if (tooLarge.length)
      throw new ValidationError(
        `Invalid body: ${tooLarge.map((x) => `${x.field}: ${x.message}`).join('; ')}`,
        tooLarge,
      );
    return { lines, subtotal: centsToString(subtotal), tax: centsToString(tax), total: centsToString(subtotal + tax) };
  }

  private async checkStore(organisationId: string, storeId: string | undefined) {
    if (storeId && !(await this.em.findOne(Place, { id: storeId, organisationId }, { fields: ['id'] }))) {
      throw invalidReferences([unknownReference('storeId', 'place', storeId)]);
    }
  }

  /** An accountId must name an account of this organisation (422 on the field, like storeId). */
  private async checkAccount(organisationId: string, accountId: string | null | undefined) {
    if (accountId && !(await this.em.findOne(Account, { id: accountId, organisationId }, { fields: ['id'] }))) {
      throw invalidReferences([unknownReference('accountId', 'account', accountId)]);
    }
  }

  /** The order number comes from the organisation's counter row, bumped in this transaction: no gaps, no duplicates. */
  async create(organisationId: string, input: CreateOrderInput) {
    await this.checkStore(organisationId, input.storeId);
    await this.checkAccount(organisationId, input.accountId);
    return this.em.transactional(async (em) => {
      const counter = await em.getRepository<Order, OrderRepository>(Order).nextNumber(organisationId);
      const id = newId('order');
      const built = await this.buildLines(em, organisationId, id, input.items, input.taxRate);
      const order = em.create(Order, {
        id,
        organisationId,
        orderNumber: `PO-${String(counter!.last_number).padStart(6, '0')}`,
        status: input.status,
        orderDate: input.orderDate ?? new Date().toISOString().slice(0, 10),
        supplierName: input.supplierName ?? null,
        customerName: input.customerName ?? null,
        accountId: input.accountId ?? null,
        storeId: input.storeId ?? null,
        currency: input.currency,
        taxLabel: input.taxLabel ?? null,
        taxRate: input.taxRate.toFixed(2),
        subtotal: built.subtotal,
        tax: built.tax,
        total: built.total,
        notes: input.notes ?? null,
        sourceType: input.sourceType,
      });
      const lines = built.lines.map((l) => em.create(OrderLine, l));
      await em.flush();
      return { order, lines };
    });
  }

  list(organisationId: string, filters: { status?: OrderStatus; supplierName?: string; storeId?: string }, page: Page) {
    const where: FilterQuery<Order> = {};
    if (filters.status) where.status = filters.status;
    if (filters.storeId) where.storeId = filters.storeId;
    if (filters.supplierName) where.supplierName = { $ilike: containsPattern(filters.supplierName) };
    return this.repo.page(organisationId, where, page);
  }

  async get(organisationId: string, id: string) {
    const order = await this.repo.findInOrg(organisationId, id);
    if (!order) throw new NotFoundError('order', id);
    return { order, lines: await this.em.find(OrderLine, { orderId: id }, { orderBy: { position: 'asc' } }) };
  }

  async update(organisationId: string, id: string, input: UpdateOrderInput) {
    return this.em.transactional(async (em) => {
      const order = await em.findOne(Order, { id, organisationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!order) throw new NotFoundError('order', id);
      if (input.status !== undefined && input.status !== order.status) {
        const allowed = ORDER_TRANSITIONS[order.status as OrderStatus];
        if (!allowed.includes(input.status))
          throw new InvalidTransitionError('order', order.status, input.status, allowed);
      }
      if (input.items !== undefined) {
        if (order.status !== 'draft' && order.status !== 'pending')
          throw new ConflictError(
            `Line items can change only while the order is draft or pending; it is ${order.status}.`,
            { status: order.status },
          );
        const built = await this.buildLines(em, organisationId, id, input.items, Number(order.taxRate));
        await em.nativeDelete(OrderLine, { orderId: id });
        built.lines.forEach((l) => em.create(OrderLine, l));
        order.subtotal = built.subtotal;
        order.tax = built.tax;
        order.total = built.total;
      }
      if (input.status !== undefined && input.status !== order.status) {
        order.status = input.status;
        if (input.status === 'delivered') order.actualDeliveryDate = new Date();
      }
      if (input.supplierName !== undefined) order.supplierName = input.supplierName;
      if (input.expectedDeliveryDate !== undefined) order.expectedDeliveryDate = input.expectedDeliveryDate;
      if (input.notes !== undefined) order.notes = input.notes;
      await em.flush();
      return { order, lines: await em.find(OrderLine, { orderId: id }, { orderBy: { position: 'asc' } }) };
    });
  }

  async delete(organisationId: string, id: string): Promise<void> {
    await this.em.transactional(async (em) => {
      const order = await em.findOne(Order, { id, organisationId });
      if (!order) throw new NotFoundError('order', id);
      await em.nativeDelete(OrderLine, { orderId: id });
      await em.remove(order).flush();
    });
  }
}
