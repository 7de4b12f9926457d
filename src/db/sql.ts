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

type PgClient = {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
};
type KnexClient = { acquireConnection(): Promise<PgClient>; releaseConnection(c: PgClient): Promise<void> };
/** A knex transaction (MikroORM's transaction context): its client hands out the transaction's connection. */
type KnexTransaction = { client: KnexClient };

/** Each query's statement, by its text: a name per distinct text (the same on every connection) and the text with `$n` placeholders. */
const statements = new Map<string, { name: string; text: string }>();

/**
 * `sql()` for the hottest statements (the API's key gate and page reads) and the writes of bytes: a
 * named prepared statement, parsed and planned once per pooled connection, then only bound and run,
 * its values sent as parameters (a Buffer as binary). `execute()` inlines the values and sends plain
 * text, which PostgreSQL parses and plans on every call: on the read path that was most of the
 * database's CPU (decisions.md, "Hot reads as prepared statements"), and a photo went as twice its
 * size in escaped hex (D248). Inside a transaction it runs on the transaction's connection (its
 * knex client hands out that one): a photo written there was inlined before (D373). `?` marks each
 * value, as in `sql()`; the query must hold no other `?`.
 */
export async function preparedSql<T = Record<string, unknown>>(
  em: EntityManager,
  query: string,
  params: unknown[] = [],
): Promise<T[]> {
  let statement = statements.get(query);
  if (!statement) {
    let n = 0;
    statement = { name: `hot_${statements.size + 1}`, text: query.replace(/\?/g, () => `$${++n}`) };
    statements.set(query, statement);
  }
  const transaction = em.getTransactionContext<KnexTransaction>();
  const knex = transaction ? transaction.client : (em.getConnection().getKnex().client as unknown as KnexClient);
  const client = await knex.acquireConnection();
  try {
    return (await client.query({ ...statement, values: params })).rows as T[];
  } finally {
    await knex.releaseConnection(client);
  }
}
