import { dataEnvelope, defineRoute, listEnvelope } from '../../http/route.js';
import type { ProjectService } from './project.service.js';
import { createProjectBody, listProjectsQuery, projectSchema, serializeProject } from './project.schemas.js';

export function projectRoutes(projects: ProjectService) {
  return [
    defineRoute({
      method: 'post',
      path: '/projects',
      operationId: 'createProject',
      summary: 'Create a project',
      description: 'Projects group places, inventory and tasks inside an organisation; list filters take `projectId`.',
      tag: 'Projects',
      body: createProjectBody,
      status: 201,
      response: dataEnvelope(projectSchema),
      handler: async ({ auth, body }) => ({
        status: 201,
        body: { data: serializeProject(await projects.create(auth.organisationId, body)) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/projects',
      operationId: 'listProjects',
      summary: 'List projects',
      tag: 'Projects',
      query: listProjectsQuery,
      status: 200,
      response: listEnvelope(projectSchema),
      handler: async ({ auth, query }) => {
        const page = await projects.list(auth.organisationId, query);
        return { body: { data: page.items.map(serializeProject), pagination: page.pagination } };
      },
    }),
  ];
}
