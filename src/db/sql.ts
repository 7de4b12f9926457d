import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Raw SQL on the entity manager's current transaction, if any. `getConnection().execute()` alone
 * would run outside it.
 */
export function sql<T = Record<string, unknown>>(
  em: EntityManager,
  query: string,
  params: unknown[] = [],
): Promise<T[]> {
  return em.getConnection().execute<T[]>(query, params, 'all', em.getTransactionContext());
}
