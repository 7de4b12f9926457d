import type { Context, Next } from 'koa';
import { AppError, type ErrorDetails } from '../lib/errors.js';
import { limitsFor, type RateLimitCategory } from '../modules/organisations/plans.js';
import { fingerprint, type IdempotencyService } from '../modules/idempotency/idempotency.service.js';
import type { RateLimiter, RateLimitResult } from '../modules/rate-limits/rate-limiter.js';
import type { AuthContext } from './auth-context.js';
import type { RouteDefinition } from './route.js';
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

function setHeaders(ctx: Context, r: { limit: number; remaining: number; resetAt: number }) {
  ctx.set('X-RateLimit-Limit', String(r.limit));
  ctx.set('X-RateLimit-Remaining', String(r.remaining));
  ctx.set('X-RateLimit-Reset', String(r.resetAt));
}

/**
 * Per key and the matched route's category, all or nothing for a batch; a refused request
 * consumes nothing. It runs after routing, so the category comes from the route that will answer,
 * never from the path's spelling.
 */
export function rateLimit(limiter: () => RateLimiter, route: Pick<RouteDefinition, 'method' | 'rateLimit'>, bodyUnreadable = false) {
  const category: RateLimitCategory = route.rateLimit?.category ?? (route.method === 'get' ? 'reads' : 'writes');
  const weightOf = route.rateLimit?.weight ?? (() => 1);
  return async (ctx: Context, next: Next) => {
    const auth = ctx.state.auth as AuthContext;
    const limit = limitsFor(auth.plan, auth.customLimits).rateLimits[category];
    // A body that could not be read (413, 415, malformed JSON) counts as one request of its category.
    const weight = bodyUnreadable ? 1 : weightOf((ctx.request as { body?: unknown }).body);
    const result = await limiter().consume(`key:${auth.apiKeyId}:${category}`, limit, weight);
    setHeaders(ctx, result);
    ctx.state.rateLimited = true;
    if (!result.allowed) {
      ctx.set('Retry-After', String(result.retryAfter));
      throw new RateLimitedError(result);
    }
    return next();
  };
}

/**
 * Failed authentications per client address (default 30 a minute), so key guessing is slow. Only
 * failures are refused: a request with a valid key always passes, so one address (a load balancer,
 * an office NAT) full of bad keys never locks out the clients behind it.
 */
export async function guardAuthFailures(ctx: Context, limiter: RateLimiter, perMinute: number, authenticate: () => Promise<void>) {
  try {
    await authenticate();
  } catch (err) {
    if (err instanceof AppError && err.status === 401) {
      const counted = await limiter.consume(`authfail:${ctx.ip}`, perMinute, 1);
      // A 401 describes the limit it counts against: this address's failed authentications.
      setHeaders(ctx, counted);
      if (!counted.allowed) {
        ctx.set('Retry-After', String(counted.retryAfter));
        throw new RateLimitedError(counted);
      }
    }
    throw err;
  }
}

/**
 * Idempotency-Key on POST and PATCH: the first request runs and its answer (unless 5xx) is kept
 * 24 hours; a repeat replays it with X-Idempotent-Replayed: true. It runs after authentication and
 * the role check, so a stored answer is only ever given to a caller allowed to make the request, and
 * it is scoped to the API key that made it: no other key can replay it.
 */
export function idempotency(service: () => IdempotencyService) {
  return async (ctx: Context, next: Next) => {
    const key = ctx.get('idempotency-key');
    if (!key || (ctx.method !== 'POST' && ctx.method !== 'PATCH')) return next();
    const auth = ctx.state.auth as AuthContext;
    const scope = { organisationId: auth.organisationId, apiKeyId: auth.apiKeyId };
    if (key.length > 255) throw new AppError('VALIDATION_FAILED', 422, 'Idempotency-Key is at most 255 characters.', { fields: [{ field: 'header.Idempotency-Key', message: 'At most 255 characters.' }] });
    const raw = (ctx.request as { rawBody?: string }).rawBody ?? '';
    const claim = await service().claim(scope, key, fingerprint(ctx.method, ctx.url, raw));
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
      if (appError.status >= 500) await service().release(scope, key);
      else await service().complete(scope, key, appError.status, errorBody(appError));
      throw err;
    }
    if (ctx.status >= 500) await service().release(scope, key);
    else await service().complete(scope, key, ctx.status, ctx.body);
  };
}
