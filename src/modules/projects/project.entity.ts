import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { ProjectRepository } from './project.repository.js';

const p = defineEntity.properties;

export const Project = defineEntity({
  name: 'Project',
  tableName: 'projects',
  repository: () => ProjectRepository,
  properties: {
    ...tenantProperties,
    name: p.string(),
    description: p.text().nullable(),
  },
  indexes: [{ properties: ['organisationId', 'id'], name: 'projects_org_id_index' }],
});
export type Project = InferEntity<typeof Project>;
