import { defineEntity, type InferEntity } from '@mikro-orm/core';

const p = defineEntity.properties;

/**
 * What the console shows of an analysis' photo: a JPEG of it, upright and at most PREVIEW_MAX_PX a
 * side, made when the photo is fetched. The photo itself is not kept (ImageBlob is deleted when the
 * analysis ends), and the console cannot show it from its own URL: that may be signed and expire, and
 * the console's content security policy loads nothing from elsewhere. Kept IMAGE_PREVIEW_DAYS.
 */
export const AnalysisImage = defineEntity({
  name: 'AnalysisImage',
  tableName: 'analysis_images',
  properties: {
    analysisId: p.string().primary(),
    organisationId: p.string(),
    contentType: p.string(),
    width: p.integer(),
    height: p.integer(),
    bytes: p.blob(),
    createdAt: p
      .datetime()
      .onCreate(() => new Date())
      .index(),
  },
});
export type AnalysisImage = InferEntity<typeof AnalysisImage>;
