import { z } from 'zod';
import { cursorParam, limitParam } from '../../lib/pagination.js';
import { httpsUrl, httpUrl, singleLine } from '../../lib/validation.js';
import { productSchema } from '../products/product.schemas.js';
import { MAX_BATCH_IMAGES } from '../organisations/plans.js';
import { ANALYSIS_STATUSES, QUEUE_AHEAD_CAP } from './analysis.entity.js';

export const metadataSchema = z
  .record(z.string().max(100), z.string().max(500, 'Metadata values are at most 500 characters.'))
  .refine((m) => Object.keys(m).length <= 10, 'At most 10 metadata keys.')
  .meta({
    description: 'Client tags: at most 10 keys, string values of at most 500 characters.',
    example: { store: '42', visit: 'morning' },
  });

const imageFields = {
  imageUrl: httpUrl.meta({
    description: 'Public http(s) URL of the shelf photo.',
    example: 'https://images.example.com/shelves/aisle-4.jpg',
  }),
  placeId: z.string().max(100).optional().meta({ description: 'Place (pl_) the photo was taken in.' }),
  taskId: z.string().max(100).optional().meta({ description: 'Task (tsk_) this photo fulfils.' }),
  externalId: singleLine(z.string().min(1).max(255))
    .optional()
    .meta({ description: 'Your reference; returned in results and events.', example: 'visit-2026-11-22-0042' }),
  metadata: metadataSchema.optional(),
};

export const createAnalysisBody = z
  .strictObject({
    ...imageFields,
    callbackUrl: httpsUrl
      .optional()
      .meta({ description: 'HTTPS URL that receives a signed POST when the analysis completes or fails.' }),
  })
  .meta({ id: 'CreateAnalysisRequest' });
export type CreateAnalysisInput = z.infer<typeof createAnalysisBody>;

export const batchImageSchema = z.strictObject(imageFields).meta({ id: 'BatchImage' });
export type BatchImageInput = z.infer<typeof batchImageSchema>;

export const createBatchBody = z
  .strictObject({
    images: z.array(batchImageSchema).min(1).max(MAX_BATCH_IMAGES).meta({
      description: "One entry per photo; at most the plan's maxBatchSize (20 to 200; enterprise up to 1,000).",
    }),
    callbackUrl: httpsUrl.optional().meta({ description: 'Applies to each analysis of the batch.' }),
  })
  .meta({ id: 'CreateBatchRequest' });
export type CreateBatchInput = z.infer<typeof createBatchBody>;

/** A date (00:00 UTC that day) or a date-time with its offset, as a Date. */
const instant = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .transform((v) => new Date(v.length === 10 ? `${v}T00:00:00Z` : v));

export const listAnalysesQuery = z.strictObject({
  status: z.enum(ANALYSIS_STATUSES).optional(),
  externalId: z.string().max(255).optional(),
  placeId: z.string().max(100).optional(),
  createdAfter: instant.optional().meta({
    description: 'Created at or after this time (a date means 00:00 UTC that day).',
    example: '2026-11-01',
  }),
  createdBefore: instant.optional().meta({
    description: 'Created before this time (a date means 00:00 UTC that day: `2026-11-02` ends with 1 November).',
    example: '2026-11-02',
  }),
  cursor: cursorParam,
  limit: limitParam(50),
});

export const analysisSchema = z
  .object({
    id: z.string().meta({ example: 'an_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    status: z.enum(ANALYSIS_STATUSES),
    totalRuns: z.number().int(),
    completedRuns: z.number().int(),
    failedRuns: z.number().int(),
    createdAt: z.iso.datetime(),
    externalId: z.string().nullable(),
    metadata: z.record(z.string(), z.string()).nullable(),
    placeId: z.string().nullable(),
    taskId: z.string().nullable(),
    completedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Analysis' });

export const analysisDetailSchema = analysisSchema
  .extend({
    imageUrl: z.string(),
    batchId: z.string().nullable(),
    productCount: z.number().int(),
    totalUnits: z.number().int(),
    totalValue: z.number(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    products: z.array(productSchema),
    queue: z
      .object({
        ahead: z
          .number()
          .int()
          .min(0)
          .max(QUEUE_AHEAD_CAP)
          .meta({
            description: `How many of your analyses in the same lane (single submissions, or batch images) were submitted before this one and are still processing; counted up to ${QUEUE_AHEAD_CAP.toLocaleString('en')}, which means that many or more.`,
            example: 2,
          }),
      })
      .nullable()
      .meta({
        description:
          'While processing: an estimate of how far back in line it is. Recognition is shared fairly across organisations and, within yours, between single submissions and batches (a single photo does not wait behind your batches), so what is ahead of it is your own earlier work in its lane. Null once completed or failed.',
      }),
  })
  .meta({ id: 'AnalysisDetail' });

export const analysisImageSchema = z
  .string()
  .meta({ format: 'binary', description: 'The photo as a JPEG, upright, at most 1,600 px a side.' });

export const submittedAnalysisSchema = z
  .object({
    id: z.string(),
    status: z.literal('processing'),
    createdAt: z.iso.datetime(),
    externalId: z.string().nullable(),
    callbackSecret: z
      .string()
      .optional()
      .meta({ description: 'Only when callbackUrl was given; shown once. Verifies callback signatures.' }),
  })
  .meta({ id: 'SubmittedAnalysis' });

export const submittedBatchSchema = z
  .object({
    batchId: z.string().meta({ example: 'bat_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    analyses: z.array(
      z.object({
        id: z.string(),
        imageUrl: z.string(),
        status: z.literal('processing'),
        callbackSecret: z.string().optional(),
      }),
    ),
    creditsConsumed: z.number().int(),
  })
  .meta({ id: 'SubmittedBatch' });

export const batchSchema = z
  .object({
    id: z.string(),
    status: z
      .enum(['processing', 'partial', 'completed'])
      .meta({ description: '`partial` while some analyses have finished, `completed` once all have (either way).' }),
    total: z.number().int(),
    processing: z.number().int(),
    completed: z.number().int(),
    failed: z.number().int(),
    createdAt: z.iso.datetime(),
    analyses: z.array(
      z.object({
        id: z.string(),
        imageUrl: z.string(),
        status: z.enum(ANALYSIS_STATUSES),
        externalId: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'Batch' });

type AnalysisRow = {
  id: string;
  status: (typeof ANALYSIS_STATUSES)[number];
  totalRuns: number;
  completedRuns: number;
  failedRuns: number;
  /** Dates from entities; ISO strings from the list query, which formats them in SQL. */
  createdAt: Date | string;
  externalId?: string | null;
  metadata?: Record<string, string> | null;
  placeId?: string | null;
  taskId?: string | null;
  completedAt?: Date | string | null;
};

const iso = (d: Date | string) => (typeof d === 'string' ? d : d.toISOString());

export function serializeAnalysis(a: AnalysisRow): z.infer<typeof analysisSchema> {
  return {
    id: a.id,
    status: a.status,
    totalRuns: a.totalRuns,
    completedRuns: a.completedRuns,
    failedRuns: a.failedRuns,
    createdAt: iso(a.createdAt),
    externalId: a.externalId ?? null,
    metadata: a.metadata ?? null,
    placeId: a.placeId ?? null,
    taskId: a.taskId ?? null,
    completedAt: a.completedAt ? iso(a.completedAt) : null,
  };
}
