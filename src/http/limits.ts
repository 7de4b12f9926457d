import type { Context } from 'koa';
import { AppError, RateLimitedError } from '../lib/errors.js';
import type { RateLimitCategory } from '../modules/organisations/plans.js';
import { AddressOverBudgetError, type AddressBudget, type KeyGate } from '../modules/api-keys/key-gate.js';
import type { RateLimiter, RateLimitResult } from '../modules/rate-limits/rate-limiter.js';
import { consoleRole, type AuthContext } from './auth-context.js';
import type { SessionGate } from '../modules/sessions/session-gate.js';
import { CSRF_HEADER, readSessionToken, sameOrigin } from './session-cookie.js';
import { clientAddressKey } from './client-address.js';
import type { RouteDefinition } from './route.js';
import { metrics } from '../lib/metrics.js';

function setHeaders(ctx: Context, r: { limit: number; remaining: number; resetAt: number }) {
  ctx.set('X-RateLimit-Limit', String(r.limit));
  ctx.set('X-RateLimit-Remaining', String(r.remaining));
  ctx.set('X-RateLimit-Reset', String(r.resetAt));
}

/** The route's rate-limit category: declared on the route, else GET is a read and the rest writes. */
export function categoryOf(route: Pick<RouteDefinition, 'method' | 'rateLimit'>): RateLimitCategory {
  return route.rateLimit?.category ?? (route.method === 'get' ? 'reads' : 'writes');
}

/** What `admit` needs: the two gates (API keys, console sessions), the windows and their settings. */
export type Door = {
  keyGate: KeyGate;
  sessionGate: SessionGate;
  limiter: RateLimiter;
  authFailuresPerMinute: number;
  publicUrl: string | undefined;
};

/**
 * The door every API request goes through: authenticate the caller and take `weight` slots of its
 * `category` window in one step, set the rate-limit headers, refuse with 429 when the window is full
 * (consuming nothing). Weight 0 only authenticates: the caller takes its slots with `takeSlots` once
 * it knows how many (a batch's are in its body).
 *
 * The caller is the API key of the Authorization header (KeyGate) or, without that header, the console
 * session of the session cookie (SessionGate), through the same steps: a session's state change must
 * also come from the service's own origin with the session's CSRF token (refused with 403 before
 * anything is taken), and its windows are the member's own.
 *
 * Failed authentications count per client address (default 30 a minute; an IPv6 address by its /64,
 * clientAddressKey), so key guessing is slow. That budget is checked first, in the same call: an
 * address past it is refused with 429 before its key is looked up, and before its body is read (the
 * body is read only after this), whatever key it sends. A refused request takes nothing, so the
 * address gets tries back as its failures leave the window.
 */
export async function admit(ctx: Context, door: Door, category: RateLimitCategory, weight: number) {
  const address: AddressBudget = { bucket: `authfail:${clientAddressKey(ctx.ip)}`, limit: door.authFailuresPerMinute };
  const authorization = ctx.get('authorization') || undefined;
  const sessionToken = authorization ? undefined : readSessionToken(ctx);
  let auth: AuthContext;
  let rate: RateLimitResult;
  try {
    if (sessionToken) {
      const entered = await door.sessionGate.enter(
        sessionToken,
        {
          required: !['GET', 'HEAD', 'OPTIONS'].includes(ctx.method),
          sameOrigin: sameOrigin(ctx, door.publicUrl),
          token: ctx.get(CSRF_HEADER) || undefined,
        },
        category,
        weight,
        address,
      );
      const { owner } = entered;
      rate = entered.rate;
      auth = {
        organisationId: owner.organisationId,
        actorId: owner.userId,
        role: consoleRole(owner.memberRole),
        plan: owner.plan,
        customLimits: owner.customLimits,
        session: { id: owner.sessionId, userId: owner.userId, memberRole: owner.memberRole },
      };
    } else {
      const entered = await door.keyGate.enter(authorization, category, weight, address);
      const { owner } = entered;
      rate = entered.rate;
      auth = {
        organisationId: owner.organisationId,
        actorId: owner.apiKeyId,
        role: owner.role,
        plan: owner.plan,
        customLimits: owner.customLimits,
        session: null,
      };
    }
  } catch (err) {
    if (err instanceof AddressOverBudgetError) refuse(ctx, err.window, 'auth_failures');
    if (err instanceof AppError && err.status === 401) {
      const counted = await door.limiter.consume(address.bucket, door.authFailuresPerMinute, 1);
      // A 401 describes the limit it counts against: this address's failed authentications.
      setHeaders(ctx, counted);
      if (!counted.allowed) refuse(ctx, counted, 'auth_failures');
    }
    throw err;
  }
  ctx.state.auth = auth;
  ctx.state.rateLimited = true;
  if (weight > 0) allowOrRefuse(ctx, category, rate);
}

/**
 * The console's public requests (sign-in, links): an address past its failed-authentication budget
 * is refused here, before the body is read, as `admit` refuses it.
 */
export async function admitAddress(ctx: Context, door: Door) {
  const window = await door.limiter.check(`authfail:${clientAddressKey(ctx.ip)}`, door.authFailuresPerMinute);
  if (!window.allowed) refuse(ctx, window, 'auth_failures');
}

/** After `admit` with weight 0: takes `weight` slots of the caller's `category` window, or 429. */
export async function takeSlots(ctx: Context, gate: KeyGate, category: RateLimitCategory, weight: number) {
  allowOrRefuse(ctx, category, await gate.take(ctx.state.auth as AuthContext, category, weight));
}

function allowOrRefuse(ctx: Context, category: RateLimitCategory, rate: RateLimitResult) {
  setHeaders(ctx, rate);
  if (!rate.allowed) refuse(ctx, rate, category);
}

function refuse(ctx: Context, window: RateLimitResult, counter: RateLimitCategory | 'auth_failures'): never {
  setHeaders(ctx, window);
  ctx.set('Retry-After', String(window.retryAfter));
  metrics.rateLimitRefusals.inc({ category: counter });
  throw new RateLimitedError(window);
}
