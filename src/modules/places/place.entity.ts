import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { PlaceRepository } from './place.repository.js';

const p = defineEntity.properties;

export type GeoPoint = { lat: number; lng: number };

export const Place = defineEntity({
  name: 'Place',
  tableName: 'places',
  repository: () => PlaceRepository,
  properties: {
    ...tenantProperties,
    projectId: p.string().nullable().index(),
    title: p.string(),
    address: p.text().nullable(),
    location: p.json<GeoPoint>().nullable(),
    countryCode: p.string().length(2).nullable(),
    state: p.string().nullable(),
    channel: p.string().nullable(),
    categoryName: p.string().nullable(),
    street: p.string().nullable(),
    postalCode: p.string().nullable(),
    url: p.text().nullable(),
    imageUrl: p.text().nullable(),
  },
  indexes: [{ properties: ['organisationId', 'id'], name: 'places_org_id_index' }],
});
export type Place = InferEntity<typeof Place>;
