import type { Context, Next } from 'koa';
import { AppError, type ErrorDetails } from '../lib/errors.js';
import { limitsFor, type RateLimitCategory } from '../modules/organisations/plans.js';
import { fingerprint, type IdempotencyService } from '../modules/idempotency/idempotency.service.js';
import type { RateLimiter, RateLimitResult } from '../modules/rate-limits/rate-limiter.js';
import type { AuthContext } from './auth-context.js';
import { errorBody, toAppError } from './error-handler.js';

export class RateLimitedError extends AppError {
  constructor(r: RateLimitResult) {
    super('RATE_LIMITED', 429, `Rate limit exceeded: ${r.limit} requests per 60 s in this category. Retry after ${r.retryAfter} s.`, {
      retryAfter: r.retryAfter,
      limit: r.limit,
      window: '60s',
    } satisfies ErrorDetails);
  }
}

/** Analyses: the two submission endpoints (a batch takes one slot per image); reads: GET; writes: the rest. */
export function categorize(ctx: Context): { category: RateLimitCategory; weight: number } {
  if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS') return { category: 'reads', weight: 1 };
  if (ctx.method === 'POST' && (ctx.path === '/api/v1/analyses' || ctx.path === '/api/v1/analyses/batch')) {
    const images = (ctx.request as { body?: { images?: unknown } }).body?.images;
    return { category: 'analyses', weight: ctx.path.endsWith('/batch') && Array.isArray(images) ? Math.max(1, images.length) : 1 };
  }
  return { category: 'writes', weight: 1 };
}

function setHeaders(ctx: Context, r: { limit: number; remaining: number; resetAt: number }) {
  ctx.set('X-RateLimit-Limit', String(r.limit));
  ctx.set('X-RateLimit-Remaining', String(r.remaining));
  ctx.set('X-RateLimit-Reset', String(r.resetAt));
}

/** Per key and category, all or nothing for a batch; a refused request consumes nothing. */
export function rateLimit(limiter: () => RateLimiter) {
  return async (ctx: Context, next: Next) => {
    const auth = ctx.state.auth as AuthContext | undefined;
    if (!auth) return next();
    const { category, weight } = categorize(ctx);
    const limit = limitsFor(auth.plan, auth.customLimits).rateLimits[category];
    const result = await limiter().consume(`key:${auth.apiKeyId}:${category}`, limit, weight);
    setHeaders(ctx, result);
    if (!result.allowed) {
      ctx.set('Retry-After', String(result.retryAfter));
      throw new RateLimitedError(result);
    }
    return next();
  };
}

/** Failed authentications per client address (default 30 a minute), so key guessing is slow. */
export async function guardAuthFailures(ctx: Context, limiter: RateLimiter, perMinute: number, authenticate: () => Promise<void>) {
  const bucket = `authfail:${ctx.ip}`;
  const seen = await limiter.peek(bucket, perMinute);
  if (seen.remaining === 0) {
    const refused = await limiter.consume(bucket, perMinute, 1);
    ctx.set('Retry-After', String(refused.retryAfter));
    throw new RateLimitedError(refused);
  }
  try {
    await authenticate();
  } catch (err) {
    if (err instanceof AppError && err.status === 401) await limiter.consume(bucket, perMinute, 1);
    throw err;
  }
}

/**
 * Idempotency-Key on POST and PATCH: the first request runs and its answer (unless 5xx) is kept
 * 24 hours; a repeat replays it with X-Idempotent-Replayed: true.
 */
export function idempotency(service: () => IdempotencyService) {
  return async (ctx: Context, next: Next) => {
    const key = ctx.get('idempotency-key');
    const auth = ctx.state.auth as AuthContext | undefined;
    if (!key || !auth || (ctx.method !== 'POST' && ctx.method !== 'PATCH')) return next();
    if (key.length > 255) throw new AppError('VALIDATION_FAILED', 422, 'Idempotency-Key is at most 255 characters.', { fields: [{ field: 'header.Idempotency-Key', message: 'At most 255 characters.' }] });
    const raw = (ctx.request as { rawBody?: string }).rawBody ?? '';
    const claim = await service().claim(auth.organisationId, key, fingerprint(ctx.method, ctx.url, raw));
    if (claim.kind === 'replay') {
      ctx.status = claim.status;
      ctx.body = claim.body;
      ctx.set('X-Idempotent-Replayed', 'true');
      return;
    }
    try {
      await next();
    } catch (err) {
      const appError = toAppError(err);
      if (appError.status >= 500) await service().release(auth.organisationId, key);
      else {
        await service().complete(auth.organisationId, key, appError.status, errorBody(appError));
      }
      throw err;
    }
    if (ctx.status >= 500) await service().release(auth.organisationId, key);
    else await service().complete(auth.organisationId, key, ctx.status, ctx.body);
  };
}
