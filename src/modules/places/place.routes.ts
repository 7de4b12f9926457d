import { dataEnvelope, defineRoute, deletedSchema, idParams, listEnvelope } from '../../http/route.js';
import type { PlaceService } from './place.service.js';
import { createPlaceBody, listPlacesQuery, placeSchema, serializePlace, updatePlaceBody } from './place.schemas.js';

const params = idParams('pl_01jdq3x4v6m8c9a1b2c3d4e5f6');

export function placeRoutes(places: PlaceService) {
  return [
    defineRoute({
      method: 'post',
      path: '/places',
      operationId: 'createPlace',
      summary: 'Create a place (store location)',
      tag: 'Places',
      body: createPlaceBody,
      status: 201,
      response: dataEnvelope(placeSchema),
      handler: async ({ auth, body }) => ({
        status: 201,
        body: { data: serializePlace(await places.create(auth.organisationId, body)) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/places',
      operationId: 'listPlaces',
      summary: 'List places',
      tag: 'Places',
      query: listPlacesQuery,
      status: 200,
      response: listEnvelope(placeSchema),
      handler: async ({ auth, query }) => {
        const { cursor, limit, ...filters } = query;
        const page = await places.list(auth.organisationId, filters, { cursor, limit });
        return { body: { data: page.items.map(serializePlace), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/places/{id}',
      operationId: 'getPlace',
      summary: 'Get a place',
      tag: 'Places',
      params,
      status: 200,
      response: dataEnvelope(placeSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => ({
        body: { data: serializePlace(await places.get(auth.organisationId, params.id)) },
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/places/{id}',
      operationId: 'updatePlace',
      summary: 'Update a place',
      tag: 'Places',
      params,
      body: updatePlaceBody,
      status: 200,
      response: dataEnvelope(placeSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params, body }) => ({
        body: { data: serializePlace(await places.update(auth.organisationId, params.id, body)) },
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/places/{id}',
      operationId: 'deletePlace',
      summary: 'Delete a place permanently',
      tag: 'Places',
      params,
      status: 200,
      response: dataEnvelope(deletedSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => {
        await places.delete(auth.organisationId, params.id);
        return { body: { data: { id: params.id, deleted: true } } };
      },
    }),
  ];
}
