import { z } from 'zod';
import { cursorParam, limitParam } from '../../lib/pagination.js';
import { freeText, singleLine } from '../../lib/validation.js';
import type { Project } from './project.entity.js';

export const createProjectBody = z
  .strictObject({
    name: singleLine(z.string().trim().min(1).max(200)).meta({ example: 'UK convenience 2026' }),
    description: freeText(z.string().max(2000)).nullable().optional(),
  })
  .meta({ id: 'CreateProjectRequest' });
export type CreateProjectInput = z.infer<typeof createProjectBody>;

export const listProjectsQuery = z.strictObject({ cursor: cursorParam, limit: limitParam() });

export const projectSchema = z
  .object({
    id: z.string().meta({ example: 'prj_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    name: z.string(),
    description: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Project' });

export function serializeProject(p: Project): z.infer<typeof projectSchema> {
  return {
    id: p.id,
    name: p.name,
    description: p.description ?? null,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
