import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { ImageBlobRepository } from './image-blob.repository.js';

const p = defineEntity.properties;

/**
 * Fetched image bytes, shared by every worker machine between the fetch and the recognition
 * passes, so the bytes never enter workflow history. Deleted when the analysis ends.
 */
export const ImageBlob = defineEntity({
  name: 'ImageBlob',
  tableName: 'image_blobs',
  repository: () => ImageBlobRepository,
  properties: {
    analysisId: p.string().primary(),
    contentType: p.string(),
    width: p.integer(),
    height: p.integer(),
    bytes: p.blob(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ImageBlob = InferEntity<typeof ImageBlob>;
