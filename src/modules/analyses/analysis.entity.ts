import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { SealedString } from '../../db/sealed-string-type.js';
import { AnalysisRepository } from './analysis.repository.js';

const p = defineEntity.properties;

export const ANALYSIS_STATUSES = ['processing', 'completed', 'failed'] as const;
export type AnalysisStatus = (typeof ANALYSIS_STATUSES)[number];

export { QUEUE_AHEAD_CAP } from './analysis.repository.js';

export const Analysis = defineEntity({
  name: 'Analysis',
  tableName: 'analyses',
  repository: () => AnalysisRepository,
  properties: {
    ...tenantProperties,
    batchId: p.string().nullable().index(),
    imageUrl: p.text(),
    placeId: p.string().nullable(),
    taskId: p.string().nullable(),
    externalId: p.string().nullable(),
    metadata: p.json<Record<string, string>>().nullable(),
    callbackUrl: p.text().nullable(),
    /** Needed in clear to sign callbacks, so encrypted at rest; returned to the client once, at submission. */
    callbackSecret: p.type(SealedString).$type<string>().nullable(),
    status: p.enum([...ANALYSIS_STATUSES]).default('processing'),
    totalRuns: p.integer(),
    completedRuns: p.integer().default(0),
    failedRuns: p.integer().default(0),
    productCount: p.integer().default(0),
    totalUnits: p.integer().default(0),
    totalValue: p.decimal('string').precision(14).scale(2),
    errorCode: p.string().nullable(),
    errorMessage: p.text().nullable(),
    completedAt: p.datetime().nullable(),
    /**
     * How many times an operator re-ran it after it failed (CLI analyses:retry). Each retry is a new
     * workflow run under the same id, and numbers its events, alert and ledger rows.
     */
    retries: p.integer().default(0),
    /** Outbox marker: null until the workflow is known to exist; the relay starts the rest. */
    workflowStartedAt: p.datetime().nullable(),
  },
  indexes: [
    { properties: ['organisationId', 'id'], name: 'analyses_org_id_index' },
    { properties: ['organisationId', 'externalId'], name: 'analyses_org_external_id_index' },
    { properties: ['organisationId', 'placeId'], name: 'analyses_org_place_id_index' },
    { properties: ['organisationId', 'status'], name: 'analyses_org_status_index' },
    // A processing analysis' place in its organisation's lane (single or batch) counts the lane's
    // earlier processing analyses: a range of one of these, which hold only processing rows.
    {
      name: 'analyses_processing_single_index',
      expression: `create index "analyses_processing_single_index" on "analyses" ("organisation_id", "id") where "status" = 'processing' and "batch_id" is null`,
    },
    {
      name: 'analyses_processing_batch_index',
      expression: `create index "analyses_processing_batch_index" on "analyses" ("organisation_id", "id") where "status" = 'processing' and "batch_id" is not null`,
    },
  ],
});
export type Analysis = InferEntity<typeof Analysis>;
