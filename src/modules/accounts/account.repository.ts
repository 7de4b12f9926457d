import type { FilterQuery } from '@mikro-orm/postgresql';
import { containsPattern } from '../../db/like.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Page } from '../../lib/pagination.js';
import type { Account } from './account.entity.js';

export type AccountFilters = { type?: Account['type']; status?: Account['status']; search?: string };

export class AccountRepository extends TenantRepository<Account> {
  list(organisationId: string, filters: AccountFilters, page: Page) {
    const where: FilterQuery<Account> = {};
    if (filters.type) where.type = filters.type;
    if (filters.status) where.status = filters.status;
    if (filters.search) {
      const pattern = containsPattern(filters.search);
      where.$or = [
        { name: { $ilike: pattern } },
        { contactName: { $ilike: pattern } },
        { contactEmail: { $ilike: pattern } },
      ];
    }
    return this.page(organisationId, where, page);
  }
}
