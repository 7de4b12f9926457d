import type { EntityManager } from '@mikro-orm/postgresql';
import type { Page } from '../../lib/pagination.js';
import { Product } from './product.entity.js';
import { type ProductRepository, type ProductFilters } from './product.repository.js';

export class ProductService {
  private readonly repo: ProductRepository;

  constructor(em: EntityManager) {
    this.repo = em.getRepository<Product, ProductRepository>(Product);
  }

  list(organisationId: string, filters: ProductFilters, page: Page) {
    return this.repo.list(organisationId, filters, page);
  }
}
