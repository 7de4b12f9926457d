import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { RecognizedProduct } from '../recognition/recognizer.js';

const p = defineEntity.properties;

/** The outcome of one recognition pass, written by that pass's activity (upsert, so a retry overwrites). */
export const AnalysisRun = defineEntity({
  name: 'AnalysisRun',
  tableName: 'analysis_runs',
  properties: {
    analysisId: p.string().primary(),
    runIndex: p.integer().primary(),
    status: p.enum(['succeeded', 'failed']),
    recognizer: p.string(),
    products: p.json<RecognizedProduct[]>().nullable(),
    error: p.text().nullable(),
    durationMs: p.integer(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  primaryKeys: ['analysisId', 'runIndex'],
});
export type AnalysisRun = InferEntity<typeof AnalysisRun>;
