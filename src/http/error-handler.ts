import type { Context, Next } from 'koa';
import type { Logger } from '../lib/logger.js';
import {
  AppError,
  InternalError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  ValidationError,
} from '../lib/errors.js';
import { databaseUnavailable } from '../db/database-unavailable.js';
import { BODY_LIMIT_BYTES } from './body.js';

/** Database down, pool exhausted or Temporal unreachable: nothing was done, a retry is safe. */
function isUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  // Our database (down, restarting, refusing, the pool's wait over): one list, src/db.
  if (databaseUnavailable(err)) return true;
  const e = err as { name?: string; code?: unknown; cause?: unknown };
  // gRPC UNAVAILABLE / DEADLINE_EXCEEDED from the Temporal client
  if (e.name === 'ServiceError' || e.name === 'ConnectionError') return true;
  if (typeof e.code === 'number' && (e.code === 14 || e.code === 4)) return true;
  // Redis (REDIS_URL) unreachable past the rate limiter's own fallback to PostgreSQL (decisions.md
  // D201), say a command that gives up after ioredis's retry: a 503 to retry, never a 500.
  if (e.name === 'MaxRetriesPerRequestError') return true;
  return e.cause ? isUnavailable(e.cause) : false;
}

/** Errors thrown by the body parser carry an HTTP status and a `type`. */
function fromBodyParser(err: unknown): AppError | undefined {
  const e = err as { status?: number; type?: string; expose?: boolean };
  if (e?.type === 'entity.too.large' || e?.status === 413) return new PayloadTooLargeError(BODY_LIMIT_BYTES);
  if (e?.status === 400 || err instanceof SyntaxError) {
    return new ValidationError('Malformed JSON in request body.', [
      { field: 'body', message: 'Malformed JSON.', code: 'invalid_json' },
    ]);
  }
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new ValidationError('Unsupported request body encoding.', [
      { field: 'body', message: 'Unsupported encoding.' },
    ]);
  }
  return undefined;
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const parsed = fromBodyParser(err);
  if (parsed) return parsed;
  if (isUnavailable(err)) return new ServiceUnavailableError();
  return new InternalError();
}

export function errorBody(e: AppError) {
  return { error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } };
}

/** The one place where errors become HTTP responses. Stack traces and SQL never leave the process. */
export function errorHandler(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (err) {
      const appError = toAppError(err);
      if (appError.status >= 500) {
        logger.error({ err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'request failed');
      }
      ctx.status = appError.status;
      ctx.body = errorBody(appError);
      if (appError.status === 503) ctx.set('Retry-After', '5');
      // A 429 refused by a service (a throttled sign-in) says when to come back, as the gates' own do.
      const retryAfter = appError.details?.retryAfter;
      if (appError.status === 429 && !ctx.response.get('Retry-After') && typeof retryAfter === 'number')
        ctx.set('Retry-After', String(retryAfter));
    }
  };
}
