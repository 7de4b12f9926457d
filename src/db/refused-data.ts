/**
 * Integrity violations a later attempt can clear: a unique key lost to a concurrent writer of the
 * same row (the retry then finds the row), an exclusion constraint likewise.
 */
const RETRYABLE_INTEGRITY = new Set(['23505', '23P01']);

export type DatabaseError = Error & {
  code?: unknown;
  table?: unknown;
  column?: unknown;
  constraint?: unknown;
  cause?: unknown;
};

/** A PostgreSQL error (as pg or MikroORM's DriverException carries it) somewhere in the cause chain. */
function databaseError(err: unknown): DatabaseError | null {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = (e as DatabaseError).cause, depth++) {
    const code = (e as DatabaseError).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return e as DatabaseError;
  }
  return null;
}

/**
 * The database error in `err` when it refuses the data itself (SQLSTATE classes 22 and 23, but for
 * the integrity violations a later attempt can clear): the same write meets the same refusal on
 * every try, so nothing should retry it. Null for anything else (a connection lost, a lock timeout).
 */
export function refusedData(err: unknown): (DatabaseError & { code: string }) | null {
  const e = databaseError(err);
  if (!e) return null;
  const sqlState = e.code as string;
  const refused = sqlState.startsWith('22') || (sqlState.startsWith('23') && !RETRYABLE_INTEGRITY.has(sqlState));
  return refused ? (e as DatabaseError & { code: string }) : null;
}
