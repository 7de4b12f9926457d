import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import type { ProjectService } from '../projects/project.service.js';
import { InventoryItem } from './inventory-item.entity.js';
import { type InventoryRepository, type InventoryFilters } from './inventory.repository.js';
import type { CreateInventoryInput, UpdateInventoryInput } from './inventory.schemas.js';

function toEntityData<T extends { expectedPrice?: number | null }>(input: T) {
  const { expectedPrice, ...rest } = input;
  return expectedPrice === undefined
    ? rest
    : { ...rest, expectedPrice: expectedPrice === null ? null : expectedPrice.toFixed(2) };
}

export class InventoryService {
  readonly repo: InventoryRepository;

  constructor(
    private readonly em: EntityManager,
    private readonly projects: ProjectService,
  ) {
    this.repo = em.getRepository<InventoryItem, InventoryRepository>(InventoryItem);
  }

  async create(organisationId: string, input: CreateInventoryInput): Promise<InventoryItem> {
    await this.projects.assertExists(organisationId, input.projectId);
    const item = this.em.create(InventoryItem, { ...toEntityData(input), id: newId('inventoryItem'), organisationId });
    await this.flushUnique(input.sku);
    return item;
  }

  async bulkUpsert(organisationId: string, items: CreateInventoryInput[]) {
    const projectIds = [...new Set(items.map((i) => i.projectId).filter((p): p is string => !!p))];
    for (const projectId of projectIds)
      await this.projects.assertExists(organisationId, projectId, 'items[].projectId');
    const rows = await this.repo.upsertBySku(
      organisationId,
      items.map((i) => ({ ...i, id: newId('inventoryItem') })),
    );
    const results = rows.map((r) => ({
      id: r.id,
      sku: r.sku,
      result: r.inserted ? ('created' as const) : ('updated' as const),
    }));
    const created = results.filter((r) => r.result === 'created').length;
    return { created, updated: results.length - created, items: results };
  }

  list(organisationId: string, filters: InventoryFilters, page: Page) {
    return this.repo.list(organisationId, filters, page);
  }

  async get(organisationId: string, id: string): Promise<InventoryItem> {
    const item = await this.repo.findInOrg(organisationId, id);
    if (!item) throw new NotFoundError('inventory item', id);
    return item;
  }

  async update(organisationId: string, id: string, input: UpdateInventoryInput): Promise<InventoryItem> {
    const item = await this.get(organisationId, id);
    await this.projects.assertExists(organisationId, input.projectId);
    this.em.assign(item, toEntityData(input));
    await this.flushUnique(input.sku ?? item.sku);
    return item;
  }

  async delete(organisationId: string, id: string): Promise<void> {
    const item = await this.get(organisationId, id);
    await this.em.remove(item).flush();
  }

  private async flushUnique(sku: string): Promise<void> {
    try {
      await this.em.flush();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) {
        this.em.clear();
        throw new ConflictError(`An inventory item with sku '${sku}' already exists.`, { field: 'sku', sku });
      }
      throw err;
    }
  }
}
