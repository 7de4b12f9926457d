import { TenantRepository } from '../../db/tenant-repository.js';
import type { Project } from './project.entity.js';

export class ProjectRepository extends TenantRepository<Project> {}
