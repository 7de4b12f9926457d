import { dataEnvelope, defineRoute, deletedSchema, idParams, listEnvelope } from '../../http/route.js';
import type { InventoryService } from './inventory.service.js';
import {
  BULK_MAX,
  bulkInventoryBody,
  bulkInventoryResultSchema,
  createInventoryBody,
  inventoryItemSchema,
  listInventoryQuery,
  serializeInventoryItem,
  updateInventoryBody,
} from './inventory.schemas.js';

const params = idParams('inv_01jdq3x4v6m8c9a1b2c3d4e5f6');

export function inventoryRoutes(inventory: InventoryService) {
  return [
    defineRoute({
      method: 'post',
      path: '/inventory',
      operationId: 'createInventoryItem',
      summary: 'Add an item to the SKU catalogue',
      tag: 'Inventory',
      body: createInventoryBody,
      status: 201,
      response: dataEnvelope(inventoryItemSchema),
      errors: ['CONFLICT'],
      handler: async ({ auth, body }) => ({
        status: 201,
        body: { data: serializeInventoryItem(await inventory.create(auth.organisationId, body)) },
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/inventory/bulk',
      operationId: 'bulkUpsertInventory',
      summary: `Create or replace up to ${BULK_MAX} catalogue items by sku`,
      description:
        'Items whose sku is new are created; items whose sku exists have their fields replaced by the ones given (omitted optional fields become null). One statement, all or nothing.',
      tag: 'Inventory',
      body: bulkInventoryBody,
      status: 200,
      response: dataEnvelope(bulkInventoryResultSchema),
      handler: async ({ auth, body }) => ({
        body: { data: await inventory.bulkUpsert(auth.organisationId, body.items) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/inventory',
      operationId: 'listInventory',
      summary: 'List catalogue items',
      tag: 'Inventory',
      query: listInventoryQuery,
      status: 200,
      response: listEnvelope(inventoryItemSchema),
      handler: async ({ auth, query }) => {
        const { cursor, limit, ...filters } = query;
        const page = await inventory.list(auth.organisationId, filters, { cursor, limit });
        return { body: { data: page.items.map(serializeInventoryItem), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/inventory/{id}',
      operationId: 'getInventoryItem',
      summary: 'Get a catalogue item',
      tag: 'Inventory',
      params,
      status: 200,
      response: dataEnvelope(inventoryItemSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => ({
        body: { data: serializeInventoryItem(await inventory.get(auth.organisationId, params.id)) },
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/inventory/{id}',
      operationId: 'updateInventoryItem',
      summary: 'Update a catalogue item',
      tag: 'Inventory',
      params,
      body: updateInventoryBody,
      status: 200,
      response: dataEnvelope(inventoryItemSchema),
      errors: ['NOT_FOUND', 'CONFLICT'],
      handler: async ({ auth, params, body }) => ({
        body: { data: serializeInventoryItem(await inventory.update(auth.organisationId, params.id, body)) },
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/inventory/{id}',
      operationId: 'deleteInventoryItem',
      summary: 'Delete a catalogue item',
      tag: 'Inventory',
      params,
      status: 200,
      response: dataEnvelope(deletedSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => {
        await inventory.delete(auth.organisationId, params.id);
        return { body: { data: { id: params.id, deleted: true } } };
      },
    }),
  ];
}
