import { EntityRepository, type FilterQuery } from '@mikro-orm/postgresql';
import { decodeCursor, toPage, type Page, type Pagination } from '../lib/pagination.js';

type TenantRow = { id: string; organisationId: string };

/** Queries every tenant-owned repository needs; each is scoped to one organisation. */
export class TenantRepository<T extends TenantRow> extends EntityRepository<T> {
  findInOrg(organisationId: string, id: string): Promise<T | null> {
    return this.findOne({ id, organisationId } as FilterQuery<T>);
  }

  /** Newest first, keyset-paginated on the time-sortable id. */
  async page(
    organisationId: string,
    where: FilterQuery<T>,
    page: Page,
  ): Promise<{ items: T[]; pagination: Pagination }> {
    const conditions: FilterQuery<T>[] = [{ organisationId } as FilterQuery<T>, where];
    if (page.cursor) conditions.push({ id: { $lt: decodeCursor(page.cursor) } } as unknown as FilterQuery<T>);
    const rows = await this.find({ $and: conditions } as FilterQuery<T>, {
      orderBy: { id: 'desc' } as never,
      limit: page.limit + 1,
    });
    return toPage(rows, page.limit);
  }
}
