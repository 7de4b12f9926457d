import { z } from 'zod';
import { dataEnvelope, defineRoute, idParams, listEnvelope } from '../../http/route.js';
import { serializeProduct } from '../products/product.schemas.js';
import { answerInCommit } from '../../http/idempotency.js';
import type { AnalysisService, Submitted, SubmittedBatch } from './analysis.service.js';
import type { AnalysisCommands } from './analysis-commands.js';
import {
  analysisDetailSchema,
  analysisImageSchema,
  analysisSchema,
  batchSchema,
  createAnalysisBody,
  createBatchBody,
  listAnalysesQuery,
  serializeAnalysis,
  submittedAnalysisSchema,
  submittedBatchSchema,
} from './analysis.schemas.js';

/** The 202 of a submission: built inside its transaction too, as its idempotent answer. */
function renderSubmitted({ analysis, callbackSecret }: Submitted) {
  return {
    data: {
      id: analysis.id,
      status: 'processing',
      createdAt: analysis.createdAt.toISOString(),
      externalId: analysis.externalId ?? null,
      ...(callbackSecret ? { callbackSecret } : {}),
    },
  };
}

function renderSubmittedBatch({ batch, analyses: rows }: SubmittedBatch) {
  return {
    data: {
      batchId: batch.id,
      analyses: rows.map(({ analysis, callbackSecret }) => ({
        id: analysis.id,
        imageUrl: analysis.imageUrl,
        status: 'processing',
        ...(callbackSecret ? { callbackSecret } : {}),
      })),
      creditsConsumed: rows.length,
    },
  };
}

/** A batch takes one analyses slot per image, all or nothing (decisions.md). */
function slotPerImage(body: unknown): number {
  const images = (body as { images?: unknown } | undefined)?.images;
  return Array.isArray(images) ? Math.max(1, images.length) : 1;
}

export function analysisRoutes(analyses: AnalysisService, commands: AnalysisCommands) {
  return [
    defineRoute({
      method: 'post',
      path: '/analyses',
      rateLimit: { category: 'analyses' },
      operationId: 'createAnalysis',
      summary: 'Submit one shelf image for analysis',
      description:
        'Costs 1 credit, taken at submission; a failed analysis gives it back. Runs asynchronously: poll, or pass callbackUrl, or subscribe a webhook.',
      tag: 'Analyses',
      body: createAnalysisBody,
      status: 202,
      response: dataEnvelope(submittedAnalysisSchema),
      errors: ['INSUFFICIENT_CREDITS'],
      handler: async ({ auth, body, ctx }) => {
        const submitted = await commands.submit(auth.organisationId, body, answerInCommit(ctx, 202, renderSubmitted));
        return { status: 202, body: renderSubmitted(submitted) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/analyses/batch',
      rateLimit: { category: 'analyses', weight: slotPerImage },
      operationId: 'createAnalysisBatch',
      summary: 'Submit a batch of shelf images',
      description: "1 credit per image, all or nothing. At most the plan's maxBatchSize images.",
      tag: 'Analyses',
      body: createBatchBody,
      status: 202,
      response: dataEnvelope(submittedBatchSchema),
      errors: ['INSUFFICIENT_CREDITS'],
      handler: async ({ auth, body, ctx }) => {
        const submitted = await commands.submitBatch(
          auth.organisationId,
          body.images,
          body.callbackUrl,
          answerInCommit(ctx, 202, renderSubmittedBatch),
        );
        return { status: 202, body: renderSubmittedBatch(submitted) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/analyses',
      operationId: 'listAnalyses',
      summary: 'List analyses',
      tag: 'Analyses',
      query: listAnalysesQuery,
      status: 200,
      response: listEnvelope(analysisSchema),
      handler: async ({ auth, query }) => {
        const { cursor, limit, ...filters } = query;
        const page = await analyses.list(auth.organisationId, filters, { cursor, limit });
        return { body: { data: page.items.map(serializeAnalysis), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/analyses/batch/{batchId}',
      operationId: 'getAnalysisBatch',
      summary: 'Get a batch and the state of its analyses',
      tag: 'Analyses',
      params: z.object({ batchId: z.string().min(1).max(100).meta({ example: 'bat_01jdq3x4v6m8c9a1b2c3d4e5f6' }) }),
      status: 200,
      response: dataEnvelope(batchSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => {
        const b = await analyses.getBatch(auth.organisationId, params.batchId);
        return {
          body: {
            data: {
              id: b.batch.id,
              status: b.status,
              total: b.batch.total,
              processing: b.processing,
              completed: b.completed,
              failed: b.failed,
              createdAt: b.batch.createdAt.toISOString(),
              analyses: b.analyses.map((a) => ({
                id: a.id,
                imageUrl: a.imageUrl,
                status: a.status,
                externalId: a.externalId ?? null,
              })),
            },
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/analyses/{id}',
      operationId: 'getAnalysis',
      summary: 'Get an analysis with its products',
      tag: 'Analyses',
      params: idParams('an_01jdq3x4v6m8c9a1b2c3d4e5f6'),
      status: 200,
      response: dataEnvelope(analysisDetailSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => {
        const { analysis: a, products, queue } = await analyses.get(auth.organisationId, params.id);
        return {
          body: {
            data: {
              ...serializeAnalysis(a),
              imageUrl: a.imageUrl,
              batchId: a.batchId ?? null,
              productCount: a.productCount,
              totalUnits: a.totalUnits,
              totalValue: Number(a.totalValue),
              error: a.errorCode ? { code: a.errorCode, message: a.errorMessage ?? '' } : null,
              products: products.map(serializeProduct),
              queue,
            },
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/analyses/{id}/image',
      operationId: 'getAnalysisImage',
      summary: "The analysis' photo (a JPEG preview), to draw its products' boxes on",
      description:
        "Upright (as recognition saw it) and at most 1,600 px a side: products' `box` fractions apply to it as they do to the photo. Made when the photo is fetched and kept IMAGE_PREVIEW_DAYS (30); 404 before, after, or when the photo could not be fetched.",
      tag: 'Analyses',
      params: idParams('an_01jdq3x4v6m8c9a1b2c3d4e5f6'),
      status: 200,
      response: analysisImageSchema,
      responseContentType: 'image/jpeg',
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => {
        const image = await analyses.image(auth.organisationId, params.id);
        return {
          body: image.bytes,
          headers: {
            'Content-Type': image.contentType,
            // The organisation's data: the browser may keep it, shared caches may not.
            'Cache-Control': 'private, max-age=3600',
            'X-Image-Width': String(image.width),
            'X-Image-Height': String(image.height),
          },
        };
      },
    }),
  ];
}
