import { bodyParser } from '@koa/bodyparser';
import type { Context, Next } from 'koa';
import { UnsupportedMediaTypeError } from '../lib/errors.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

function hasBody(ctx: Context): boolean {
  const length = ctx.request.length;
  return (length !== undefined && length > 0) || ctx.get('transfer-encoding') !== '';
}

/**
 * JSON only, at most 1 MiB. A body with another content type is refused (415) rather than
 * silently ignored. The raw text is kept on ctx.request.rawBody for idempotency fingerprints.
 */
export function jsonBody() {
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: BODY_LIMIT_BYTES, encoding: 'utf-8', jsonStrict: true });
  return async (ctx: Context, next: Next) => {
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method) || !hasBody(ctx)) return next();
    if (!ctx.is('application/json', '+json')) throw new UnsupportedMediaTypeError(ctx.get('content-type') || undefined);
    return parse(ctx, next);
  };
}
