import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { BatchRepository } from './batch.repository.js';

const p = defineEntity.properties;

export const Batch = defineEntity({
  name: 'Batch',
  tableName: 'batches',
  repository: () => BatchRepository,
  properties: {
    ...tenantProperties,
    total: p.integer(),
    callbackUrl: p.text().nullable(),
    /** Outbox marker, as on analyses: the batch workflow starts the children. */
    workflowStartedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['organisationId', 'id'], name: 'batches_org_id_index' }],
});
export type Batch = InferEntity<typeof Batch>;
