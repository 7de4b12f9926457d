import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from './db/orm.js';
import { ApiKeyService } from './modules/api-keys/api-key.service.js';
import { CreditService } from './modules/credits/credit.service.js';
import { InventoryService } from './modules/inventory/inventory.service.js';
import { OrganisationService } from './modules/organisations/organisation.service.js';
import { PlaceService } from './modules/places/place.service.js';
import { ProjectService } from './modules/projects/project.service.js';

/**
 * The typed service graph. With the global entity manager each call resolves to the
 * request's forked manager (RequestContext); activities pass `orm.em.fork()` instead.
 */
export function createServices(em: EntityManager) {
  const credits = new CreditService(em);
  const projects = new ProjectService(em);
  return {
    em,
    apiKeys: new ApiKeyService(em),
    credits,
    organisations: new OrganisationService(em, credits),
    projects,
    places: new PlaceService(em, projects),
    inventory: new InventoryService(em, projects),
  };
}

export type Services = ReturnType<typeof createServices>;

export function servicesFor(orm: Orm): Services {
  return createServices(orm.em);
}
