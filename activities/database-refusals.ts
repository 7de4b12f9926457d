import { ApplicationFailure } from '@temporalio/activity';
import { refusedData } from '../src/db/refused-data.js';
import { DATABASE_REFUSED } from '../src/temporal/contracts/durable-steps.js';

const CONDITION_NAMES: Record<string, string> = {
  '22001': 'string too long for its column',
  '22003': 'number out of its column range',
  '22007': 'invalid date/time',
  '22008': 'date/time out of range',
  '22012': 'division by zero',
  '22021': 'invalid byte sequence',
  '22P02': 'invalid value for its type',
  '23502': 'not-null violation',
  '23503': 'foreign key violation',
  '23514': 'check constraint violation',
};

/**
 * The server's sentence alone. The driver prefixes it with the statement (whose bound parameters
 * are customer data) and some sentences quote the offending value after a colon: both are cut.
 */
function serverSentence(err: Error): string {
  const afterStatement = err.message.includes(' - ')
    ? err.message.slice(err.message.lastIndexOf(' - ') + 3)
    : err.message;
  return afterStatement.split(': ')[0]!.slice(0, 200);
}

/** The table a statement writes, for refusals the server reports without one (22001, 22003). */
function statementTable(err: Error): string | null {
  const m = /^\s*(?:insert\s+into|update|delete\s+from)\s+"?([A-Za-z_][\w]*)"?/i.exec(err.message);
  return m ? m[1]! : null;
}

/**
 * The failure an activity throws for a refused write, or null when the error is not one.
 * Non-retryable: the same data meets the same refusal on every attempt, and a step retried
 * without end stops its workflow (a task stops answering its updates, an analysis never ends).
 */
export function databaseRefusal(err: unknown): ApplicationFailure | null {
  const e = refusedData(err);
  if (!e) return null;
  const sqlState = e.code;
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
  const table = str(e.table) ?? statementTable(e);
  const column = str(e.column);
  const constraint = str(e.constraint);
  const where = [table && `table ${table}`, column && `column ${column}`, constraint && `constraint ${constraint}`]
    .filter(Boolean)
    .join(', ');
  const name = CONDITION_NAMES[sqlState] ?? (sqlState.startsWith('22') ? 'data exception' : 'integrity violation');
  return ApplicationFailure.create({
    type: DATABASE_REFUSED,
    message: `The database refused the data (SQLSTATE ${sqlState}, ${name}${where ? `; ${where}` : ''}): ${serverSentence(e)}`,
    details: [{ sqlState, table, column, constraint }],
    nonRetryable: true,
    // No cause: the driver error carries the statement and its values into workflow history.
  });
}

type ActivityFunction = (...args: any[]) => Promise<unknown>;

/** Every activity of `activities`, its database refusals turned into DATABASE_REFUSED failures. */
export function withDatabaseRefusals<T extends Record<string, ActivityFunction>>(activities: T): T {
  const wrapped: Record<string, ActivityFunction> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        throw databaseRefusal(err) ?? err;
      }
    };
  }
  return wrapped as T;
}
