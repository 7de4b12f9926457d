import { z } from 'zod';
import { cursorParam, limitParam } from '../../lib/pagination.js';
import { freeText, httpUrl, singleLine } from '../../lib/validation.js';
import { ACCOUNT_STATUSES, ACCOUNT_TYPES, type Account } from './account.entity.js';

const fields = {
  name: singleLine(z.string().trim().min(1).max(200)).meta({ example: 'Brightwell Foods Ltd' }),
  type: z.enum(ACCOUNT_TYPES),
  status: z.enum(ACCOUNT_STATUSES).optional(),
  contactName: singleLine(z.string().max(200)).nullable().optional(),
  contactEmail: z.email().max(255).nullable().optional().meta({ example: 'orders@brightwell.example' }),
  contactPhone: singleLine(z.string().max(50)).nullable().optional(),
  website: httpUrl.nullable().optional(),
  notes: freeText(z.string().max(5000)).nullable().optional(),
  logoUrl: httpUrl.nullable().optional(),
};

export const createAccountBody = z.strictObject(fields).meta({ id: 'CreateAccountRequest' });
export const updateAccountBody = z
  .strictObject({ ...fields, name: fields.name.optional(), type: fields.type.optional() })
  .meta({ id: 'UpdateAccountRequest' });
export type CreateAccountInput = z.infer<typeof createAccountBody>;
export type UpdateAccountInput = z.infer<typeof updateAccountBody>;

export const listAccountsQuery = z.strictObject({
  type: z.enum(ACCOUNT_TYPES).optional(),
  status: z.enum(ACCOUNT_STATUSES).optional(),
  search: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Case-insensitive match on name, contact name and e-mail.' }),
  cursor: cursorParam,
  limit: limitParam(),
});

export const accountSchema = z
  .object({
    id: z.string().meta({ example: 'acc_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    name: z.string(),
    type: z.enum(ACCOUNT_TYPES),
    status: z.enum(ACCOUNT_STATUSES),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    contactName: z.string().nullable(),
    contactEmail: z.string().nullable(),
    contactPhone: z.string().nullable(),
    website: z.string().nullable(),
    notes: z.string().nullable(),
    logoUrl: z.string().nullable(),
  })
  .meta({ id: 'Account' });

export function serializeAccount(a: Account): z.infer<typeof accountSchema> {
  return {
    id: a.id,
    name: a.name,
    type: a.type,
    status: a.status,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
    contactName: a.contactName ?? null,
    contactEmail: a.contactEmail ?? null,
    contactPhone: a.contactPhone ?? null,
    website: a.website ?? null,
    notes: a.notes ?? null,
    logoUrl: a.logoUrl ?? null,
  };
}
