import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import type { ProjectService } from '../projects/project.service.js';
import { Place } from './place.entity.js';
import { type PlaceRepository, type PlaceFilters } from './place.repository.js';
import type { CreatePlaceInput, UpdatePlaceInput } from './place.schemas.js';

export class PlaceService {
  readonly repo: PlaceRepository;

  constructor(
    private readonly em: EntityManager,
    private readonly projects: ProjectService,
  ) {
    this.repo = em.getRepository<Place, PlaceRepository>(Place);
  }

  async create(organisationId: string, input: CreatePlaceInput): Promise<Place> {
    await this.projects.assertExists(organisationId, input.projectId);
    const place = this.em.create(Place, { ...input, id: newId('place'), organisationId });
    await this.em.flush();
    return place;
  }

  list(organisationId: string, filters: PlaceFilters, page: Page) {
    return this.repo.list(organisationId, filters, page);
  }

  async get(organisationId: string, id: string): Promise<Place> {
    const place = await this.repo.findInOrg(organisationId, id);
    if (!place) throw new NotFoundError('place', id);
    return place;
  }

  async update(organisationId: string, id: string, input: UpdatePlaceInput): Promise<Place> {
    const place = await this.get(organisationId, id);
    await this.projects.assertExists(organisationId, input.projectId);
    this.em.assign(place, input);
    await this.em.flush();
    return place;
  }

  async delete(organisationId: string, id: string): Promise<void> {
    const place = await this.get(organisationId, id);
    await this.em.remove(place).flush();
  }
}
