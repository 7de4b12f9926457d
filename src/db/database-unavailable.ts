/** What PostgreSQL or the driver say when our database cannot be reached (a restart, a failover). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  '57P01',
  '57P03',
  '53300',
]);
/**
 * What pg says, with no code, when the server drops a connection (a restart, a failover) or does not
 * answer one in time (DATABASE_CONNECT_TIMEOUT_MS), or a client is used after either.
 */
const CONNECTION_LOST = /^Connection terminated|is not queryable/;
/**
 * knex's wait for a pooled connection over (DATABASE_ACQUIRE_TIMEOUT_MS). Raw, it is a KnexTimeoutError;
 * through the ORM a DriverException that keeps only the sentence (its name replaced, no cause).
 */
const POOL_WAIT_OVER = /^Knex: Timeout acquiring a connection/;
/** 55000 is a broad class: only its sentence for a database closed to connections (ALTER DATABASE … ALLOW_CONNECTIONS false). */
const CLOSED_TO_CONNECTIONS = /is not currently accepting connections/;

/** Our database unreachable: nothing was done, and the same statement may work in a moment. */
export function databaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { name?: string; code?: unknown; message?: unknown; cause?: unknown };
  if (e.name === 'ConnectionException' || e.name === 'KnexTimeoutError') return true;
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  if (typeof e.message === 'string' && e.code === undefined && CONNECTION_LOST.test(e.message)) return true;
  if (e.name === 'DriverException' && typeof e.message === 'string' && POOL_WAIT_OVER.test(e.message)) return true;
  if (e.code === '55000' && typeof e.message === 'string' && CLOSED_TO_CONNECTIONS.test(e.message)) return true;
  return e.cause ? databaseUnavailable(e.cause) : false;
}

/** How long a step waits for our database to come back before it fails as it would have. */
const WAIT_FOR_DATABASE_MS = 25_000;

/**
 * Runs `step` (which must be safe to run again) until it does not fail for our database being
 * unreachable, for up to 25 s: for steps whose retry budget is someone else's (an image host's
 * attempts), so that a PostgreSQL restart does not spend it. The first retry is at once (dead pooled
 * connections fail instantly; a new one may work), then 250 ms doubling to 4 s.
 */
export async function throughDatabaseRestart<T>(step: () => Promise<T>): Promise<T> {
  const until = Date.now() + WAIT_FOR_DATABASE_MS;
  for (let wait = 0; ; wait = Math.min(Math.max(wait * 2, 250), 4000)) {
    try {
      return await step();
    } catch (err) {
      if (!databaseUnavailable(err) || Date.now() + wait > until) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
