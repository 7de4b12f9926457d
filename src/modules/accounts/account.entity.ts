import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { AccountRepository } from './account.repository.js';

const p = defineEntity.properties;

export const ACCOUNT_TYPES = ['brand', 'supplier', 'distributor', 'manufacturer', 'retailer', 'partner'] as const;
export const ACCOUNT_STATUSES = ['active', 'inactive', 'archived'] as const;

export const Account = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  repository: () => AccountRepository,
  properties: {
    ...tenantProperties,
    name: p.string(),
    type: p.enum([...ACCOUNT_TYPES]),
    status: p.enum([...ACCOUNT_STATUSES]).default('active'),
    contactName: p.string().nullable(),
    contactEmail: p.string().nullable(),
    contactPhone: p.string().nullable(),
    website: p.text().nullable(),
    notes: p.text().nullable(),
    logoUrl: p.text().nullable(),
  },
  indexes: [{ properties: ['organisationId', 'id'], name: 'accounts_org_id_index' }],
});
export type Account = InferEntity<typeof Account>;
