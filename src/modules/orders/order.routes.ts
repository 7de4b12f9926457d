import { dataEnvelope, defineRoute, deletedSchema, idParams, listEnvelope } from '../../http/route.js';
import type { OrderService } from './order.service.js';
import {
  createOrderBody,
  listOrdersQuery,
  orderDetailSchema,
  orderSchema,
  serializeOrder,
  serializeOrderDetail,
  updateOrderBody,
} from './order.schemas.js';

const params = idParams('ord_01jdq3x4v6m8c9a1b2c3d4e5f6');
const tag = 'Orders';

export function orderRoutes(orders: OrderService) {
  return [
    defineRoute({
      method: 'post',
      path: '/orders',
      operationId: 'createOrder',
      summary: 'Create a purchase order (draft, pending or confirmed)',
      description:
        'Totals are computed by the server in exact decimals: taxAmount = quantity × unitPrice × taxPercent / 100, half up to cents.',
      tag,
      body: createOrderBody,
      status: 201,
      response: dataEnvelope(orderDetailSchema),
      handler: async ({ auth, body }) => {
        const { order, lines } = await orders.create(auth.organisationId, body);
        return { status: 201, body: { data: serializeOrderDetail(order, lines) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/orders',
      operationId: 'listOrders',
      summary: 'List orders',
      tag,
      query: listOrdersQuery,
      status: 200,
      response: listEnvelope(orderSchema),
      handler: async ({ auth, query }) => {
        const { cursor, limit, ...filters } = query;
        const page = await orders.list(auth.organisationId, filters, { cursor, limit });
        return { body: { data: page.items.map(serializeOrder), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/orders/{id}',
      operationId: 'getOrder',
      summary: 'Get an order with its lines',
      tag,
      params,
      status: 200,
      response: dataEnvelope(orderDetailSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => {
        const { order, lines } = await orders.get(auth.organisationId, params.id);
        return { body: { data: serializeOrderDetail(order, lines) } };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/orders/{id}',
      operationId: 'updateOrder',
      summary:
        'Update an order: fields, status (draft → pending → confirmed → shipped → delivered; draft, pending, confirmed → cancelled), lines while draft or pending',
      tag,
      params,
      body: updateOrderBody,
      status: 200,
      response: dataEnvelope(orderDetailSchema),
      errors: ['NOT_FOUND', 'INVALID_TRANSITION', 'CONFLICT'],
      handler: async ({ auth, params, body }) => {
        const { order, lines } = await orders.update(auth.organisationId, params.id, body);
        return { body: { data: serializeOrderDetail(order, lines) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/orders/{id}',
      operationId: 'deleteOrder',
      summary: 'Delete an order and its lines',
      tag,
      params,
      status: 200,
      response: dataEnvelope(deletedSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => {
        await orders.delete(auth.organisationId, params.id);
        return { body: { data: { id: params.id, deleted: true } } };
      },
    }),
  ];
}
