import { pino, stdSerializers, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { logContext } from './tracing.js';

export type { Logger };

/**
 * Never logged: API keys, signing secrets and Authorization headers, wherever they sit in a log
 * object (one or two levels deep covers every shape we log: request headers, bodies, SDK meta).
 */
const SECRET_FIELDS = [
  'authorization',
  'key',
  'apiKey',
  'secret',
  'previousSecret',
  'callbackSecret',
  'password',
  'token',
];
export const REDACT_PATHS = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...SECRET_FIELDS.map((f) => `*.*.${f}`),
  'req.headers.authorization',
  'request.headers.authorization',
];

/** A PostgreSQL error carries a five-character SQLSTATE; the driver prefixes its message with the statement. */
function isDatabaseError(err: Error & { code?: unknown }): boolean {
  return (
    typeof err.code === 'string' &&
    /^[0-9A-Z]{5}$/.test(err.code) &&
    ('routine' in err || 'severity' in err || 'sqlState' in err || err.name.endsWith('Exception'))
  );
}

/**
 * Errors as logged. A database error is reduced to its class, SQLSTATE, table, column and
 * constraint and the server's own sentence: the statement text the driver puts in the message
 * carries bound parameters (a key hash, a secret, a customer's data), and `detail` quotes values.
 */
export function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  if (!isDatabaseError(err)) {
    const out = stdSerializers.err(err) as unknown as Record<string, unknown>;
    if (err.cause) out.cause = serializeError(err.cause);
    return out;
  }
  const e = err as Error & Record<string, unknown>;
  const message = err.message.includes(' - ') ? err.message.slice(err.message.lastIndexOf(' - ') + 3) : err.message;
  return {
    type: err.name,
    code: e.code,
    message,
    table: e.table,
    column: e.column,
    constraint: e.constraint,
    stack: (err.stack ?? '')
      .split('\n')
      .filter((l) => l.trim().startsWith('at '))
      .join('\n'),
  };
}

/** `destination` defaults to stdout; tests pass a stream to read what would be logged. */
export function createLogger(level: string, name: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    name,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, error: serializeError },
    // trace_id and the request id on every line written inside a traced span or an API request.
    mixin: logContext,
  };
  return destination ? pino(options, destination) : pino(options);
}
