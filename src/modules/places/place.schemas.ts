import { z } from 'zod';
import { countryCode, httpUrl, singleLine } from '../../lib/validation.js';
import { cursorParam, limitParam } from '../../lib/pagination.js';
import type { Place } from './place.entity.js';

const location = z
  .strictObject({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) })
  .meta({ id: 'GeoPoint', description: 'WGS 84 coordinates.', example: { lat: 51.5072, lng: -0.1276 } });

const placeFields = {
  title: singleLine(z.string().trim().min(1).max(200)).meta({
    description: 'Human-readable store name.',
    example: 'Tesco Metro Holborn',
  }),
  address: singleLine(z.string().trim().max(500))
    .nullable()
    .optional()
    .meta({ example: '10 High Holborn, London WC1V 6PX' }),
  location: location.nullable().optional(),
  countryCode: countryCode.nullable().optional().meta({ description: 'ISO 3166-1 alpha-2.', example: 'GB' }),
  state: singleLine(z.string().max(100)).nullable().optional(),
  channel: singleLine(z.string().max(100))
    .nullable()
    .optional()
    .meta({ description: 'Retail channel classification.', example: 'convenience' }),
  categoryName: singleLine(z.string().max(100)).nullable().optional(),
  street: singleLine(z.string().max(200)).nullable().optional(),
  postalCode: singleLine(z.string().max(20)).nullable().optional(),
  url: httpUrl.nullable().optional(),
  imageUrl: httpUrl.nullable().optional(),
  projectId: z.string().max(100).nullable().optional().meta({ description: 'Project (prj_) grouping this place.' }),
};

export const createPlaceBody = z.strictObject(placeFields).meta({ id: 'CreatePlaceRequest' });
export const updatePlaceBody = z
  .strictObject({ ...placeFields, title: placeFields.title.optional() })
  .meta({ id: 'UpdatePlaceRequest' });
export type CreatePlaceInput = z.infer<typeof createPlaceBody>;
export type UpdatePlaceInput = z.infer<typeof updatePlaceBody>;

export const listPlacesQuery = z.strictObject({
  countryCode: countryCode.optional(),
  channel: z.string().max(100).optional(),
  search: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Case-insensitive match on title and address.' }),
  projectId: z.string().max(100).optional(),
  cursor: cursorParam,
  limit: limitParam(),
});
export type ListPlacesQuery = z.infer<typeof listPlacesQuery>;

export const placeSchema = z
  .object({
    id: z.string().meta({ example: 'pl_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    title: z.string(),
    address: z.string().nullable(),
    location: location.nullable(),
    countryCode: z.string().nullable(),
    state: z.string().nullable(),
    channel: z.string().nullable(),
    categoryName: z.string().nullable(),
    street: z.string().nullable(),
    postalCode: z.string().nullable(),
    url: z.string().nullable(),
    imageUrl: z.string().nullable(),
    projectId: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Place' });

export function serializePlace(p: Place): z.infer<typeof placeSchema> {
  return {
    id: p.id,
    title: p.title,
    address: p.address ?? null,
    location: p.location ?? null,
    countryCode: p.countryCode ?? null,
    state: p.state ?? null,
    channel: p.channel ?? null,
    categoryName: p.categoryName ?? null,
    street: p.street ?? null,
    postalCode: p.postalCode ?? null,
    url: p.url ?? null,
    imageUrl: p.imageUrl ?? null,
    projectId: p.projectId ?? null,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
