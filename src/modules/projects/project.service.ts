import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidReferences, unknownReference } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import { Project } from './project.entity.js';
import { type ProjectRepository } from './project.repository.js';
import type { CreateProjectInput } from './project.schemas.js';

export class ProjectService {
  private readonly repo: ProjectRepository;

  constructor(private readonly em: EntityManager) {
    this.repo = em.getRepository<Project, ProjectRepository>(Project);
  }

  async create(organisationId: string, input: CreateProjectInput): Promise<Project> {
    const project = this.em.create(Project, {
      id: newId('project'),
      organisationId,
      name: input.name,
      description: input.description ?? null,
    });
    await this.em.flush();
    return project;
  }

  list(organisationId: string, page: Page) {
    return this.repo.page(organisationId, {}, page);
  }

  /** A body that names a project of another organisation (or none) is a validation error on that field. */
  async assertExists(organisationId: string, projectId: string | null | undefined, field = 'projectId'): Promise<void> {
    if (!projectId) return;
    if (!(await this.repo.findInOrg(organisationId, projectId))) {
      throw invalidReferences([unknownReference(field, 'project', projectId)]);
    }
  }
}
