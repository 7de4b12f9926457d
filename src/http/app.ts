import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { RequestContext } from '@mikro-orm/core';
import Koa, { type Context, type Next } from 'koa';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import { AppError, AuthRequiredError, ForbiddenError, NotFoundError } from '../lib/errors.js';
import type { ApiKeyRole } from '../modules/api-keys/api-key.entity.js';
import type { Logger } from '../lib/logger.js';
import { parseOrThrow } from '../lib/validation.js';
import type { Services } from '../services.js';
import type { TemporalHandle } from '../temporal/client.js';
import { temporalHealthy } from '../temporal/client.js';
import { roleAllows, type AuthContext } from './auth-context.js';
import { jsonBody } from './body.js';
import { errorHandler } from './error-handler.js';
import { guardAuthFailures, idempotency, rateLimit } from './limits.js';
import { buildOpenApiDocument } from './openapi.js';
import { renderReferencePage } from './reference-page.js';
import { defaultRole, toRouterPath, type RouteDefinition } from './route.js';
import { apiRoutes } from './routes.js';

export const API_PREFIX = '/api/v1';

export type AppDeps = { orm: Orm; services: Services; temporal: TemporalHandle; logger: Logger; config: Config };

function requestLog(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const started = performance.now();
    const requestId = randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      logger.info(
        { requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) },
        'request',
      );
    }
  };
}

function authenticate(services: Services, publicPaths: Set<string>, authFailuresPerMinute: number) {
  return async (ctx: Context, next: Next) => {
    if (!ctx.path.startsWith(API_PREFIX) || publicPaths.has(ctx.path)) return next();
    await guardAuthFailures(ctx, services.rateLimiter, authFailuresPerMinute, async () => {
      ctx.state.auth = (await services.apiKeys.authenticate(ctx.get('authorization') || undefined)) satisfies AuthContext;
    });
    return next();
  };
}

/** Refuses, before any handler work, a route that needs a caller but has none (401, never a 500). */
function requireAuth(ctx: Context, next: Next) {
  if (!ctx.state.auth) throw new AuthRequiredError();
  return next();
}

/**
 * Parses the body, then takes the route's rate limit (a batch's weight is in its body). A body that
 * cannot be read (413, 415, malformed JSON) still takes one slot, so its answer carries the headers
 * like every other answer to a valid key.
 */
function bodyThenRateLimit(services: Services, route: RouteDefinition) {
  const parse = jsonBody();
  const limited = rateLimit(() => services.rateLimiter, route);
  const unreadable = rateLimit(() => services.rateLimiter, route, true);
  return async (ctx: Context, next: Next) => {
    try {
      await parse(ctx, async () => undefined);
    } catch (err) {
      await unreadable(ctx, async () => undefined);
      throw err;
    }
    return limited(ctx, next);
  };
}

function requireRole(required: ApiKeyRole) {
  return (ctx: Context, next: Next) => {
    const auth = ctx.state.auth as AuthContext;
    if (!roleAllows(auth.role, required)) throw new ForbiddenError(required, auth.role);
    return next();
  };
}

/**
 * Each route runs its own chain, in the order security needs: the caller is known (authenticated
 * before routing), the body parsed, the rate limit of this route's category taken, the role checked,
 * and only then may a stored idempotent answer be replayed.
 */
function mount(router: Router, route: RouteDefinition, services: Services): void {
  const required = route.role ?? defaultRole(route.method);
  const guards =
    route.auth === false
      ? [jsonBody()]
      : [requireAuth, bodyThenRateLimit(services, route), requireRole(required), idempotency(() => services.idempotency)];
  router[route.method](toRouterPath(route.path), ...guards, async (ctx: Context) => {
    const auth = ctx.state.auth as AuthContext;
    const params = route.params ? parseOrThrow(route.params, ctx.params, 'path') : undefined;
    const query = route.query ? parseOrThrow(route.query, ctx.query, 'query') : undefined;
    const rawBody = (ctx.request as { body?: unknown }).body;
    const body = route.body ? parseOrThrow(route.body, rawBody ?? {}, 'body') : undefined;
    const result = await route.handler({ params, query, body, auth, ctx });
    ctx.status = result.status ?? route.status;
    for (const [k, v] of Object.entries(result.headers ?? {})) ctx.set(k, v);
    ctx.body = result.body;
  });
}

export function createApp(deps: AppDeps): { app: Koa; routes: RouteDefinition[] } {
  const { orm, services, temporal, logger, config } = deps;
  const routes = apiRoutes(services);
  const openapi = buildOpenApiDocument(routes);
  const referencePage = renderReferencePage(openapi as never);

  // Behind PROXY_HOPS proxies the client is that many entries from the right of X-Forwarded-For;
  // entries further left are whatever the client wrote and are never trusted.
  const app = new Koa({ proxy: config.TRUST_PROXY, maxIpsCount: config.PROXY_HOPS });
  app.silent = true;

  const health = new Router({ strict: true, sensitive: true });
  health.get('/health/live', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  health.get('/health/ready', async (ctx) => {
    const [database, temporalOk] = await Promise.all([
      orm.isConnected().catch(() => false),
      temporalHealthy(temporal),
    ]);
    ctx.status = database && temporalOk ? 200 : 503;
    ctx.body = { status: ctx.status === 200 ? 'ok' : 'unavailable', database, temporal: temporalOk };
  });

  // Strict and case-sensitive everywhere: a path reaches a handler only spelled exactly as the
  // route, so the checks keyed on paths (public paths, the /api/v1 prefix) see what the router sees.
  const routing = { prefix: API_PREFIX, strict: true, sensitive: true };
  const docs = new Router(routing);
  docs.get('/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  docs.get('/docs', (ctx) => {
    ctx.type = 'text/html';
    ctx.body = referencePage;
  });
  const publicPaths = new Set([`${API_PREFIX}/openapi.json`, `${API_PREFIX}/docs`]);

  const api = new Router(routing);
  for (const route of routes) mount(api, route, services);

  app.use(requestLog(logger));
  app.use(errorHandler(logger));
  app.use(health.routes());
  app.use(docs.routes());
  app.use((ctx, next) => RequestContext.create(orm.em, next));
  app.use(authenticate(services, publicPaths, config.AUTH_FAILURES_PER_MINUTE));
  // Runs last on the way out: anything no router answered is a 404 in the error envelope. An
  // authenticated request no route took (404, 405) still draws on its key's reads or writes, with
  // the headers, so unknown paths are no free way around the limits.
  const unrouted = { get: rateLimit(() => services.rateLimiter, { method: 'get' }), other: rateLimit(() => services.rateLimiter, { method: 'post' }) };
  app.use(async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new NotFoundError(`route ${ctx.method} ${ctx.path}`);
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (ctx.state.auth && !ctx.state.rateLimited && (status === 404 || status === 405)) {
        await (ctx.method === 'GET' || ctx.method === 'HEAD' ? unrouted.get : unrouted.other)(ctx, async () => undefined);
      }
      throw err;
    }
  });
  app.use(api.routes());
  app.use(
    api.allowedMethods({
      throw: true,
      methodNotAllowed: () => new AppError('METHOD_NOT_ALLOWED', 405, 'This path does not support that method.'),
      notImplemented: () => new AppError('METHOD_NOT_ALLOWED', 405, 'This method is not supported.'),
    }),
  );
  return { app, routes };
}
