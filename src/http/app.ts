import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { RequestContext } from '@mikro-orm/core';
import Koa, { type Context, type Next } from 'koa';
import type { Config } from '../config.js';
import type { Orm } from '../db/orm.js';
import { AppError, CsrfError, ForbiddenError, NotAllowedError, NotFoundError } from '../lib/errors.js';
import type { ApiKeyRole } from '../modules/api-keys/api-key.entity.js';
import type { Logger } from '../lib/logger.js';
import { parseOrThrow } from '../lib/validation.js';
import type { Commands } from '../commands.js';
import type { Services } from '../services.js';
import type { TemporalHandle } from '../temporal/client.js';
import { temporalHealthy } from '../temporal/client.js';
import { roleAllows, type AuthContext } from './auth-context.js';
import { jsonBody } from './body.js';
import { errorHandler } from './error-handler.js';
import { admit, admitAddress, categoryOf, takeSlots, type Door } from './limits.js';
import { idempotency } from './idempotency.js';
import { sameOrigin } from './session-cookie.js';
import { buildOpenApiDocument } from './openapi.js';
import { consoleRouter, defaultConsoleDir } from './console-app.js';
import { referenceAsset, renderReferencePage } from './reference-page.js';
import { defaultRole, toRouterPath, type RouteDefinition } from './route.js';
import { apiRoutes } from './routes.js';
import { metrics } from '../lib/metrics.js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { requestIds, tracer, tracingEnabled } from '../lib/tracing.js';

export const API_PREFIX = '/api/v1';

export type AppDeps = {
  orm: Orm;
  services: Services;
  commands: Commands;
  temporal: TemporalHandle;
  logger: Logger;
  config: Config;
};

/** The request's server span: the root of the trace its workflow and activities join. */
function serveInSpan(ctx: Context, next: () => Promise<unknown>) {
  return tracer().startActiveSpan(
    `${ctx.method}`,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method } },
    async (span) => {
      try {
        return await next();
      } finally {
        const route = (ctx as { _matchedRoute?: string })._matchedRoute;
        if (route) span.updateName(`${ctx.method} ${route}`).setAttribute('http.route', route);
        span.setAttribute('http.response.status_code', ctx.status);
        span.setAttribute('request.id', String(ctx.state.requestId));
        if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
    },
  );
}

function requestLog(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const started = performance.now();
    const requestId = randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const served = () => requestIds.run(requestId, next);
    try {
      await (tracingEnabled() ? serveInSpan(ctx, served) : served());
    } finally {
      // The route template (`/api/v1/analyses/:id`), never the path: ids would make a series each.
      const labels = {
        route: (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched',
        method: ctx.method,
        status: String(ctx.status),
      };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, (performance.now() - started) / 1000);
      logger.info(
        {
          requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(performance.now() - started),
          // Who made it: an API key (key_…) or a member signed in to the console (usr_…).
          actor: (ctx.state.auth as AuthContext | undefined)?.actorId,
        },
        'request',
      );
    }
  };
}

/**
 * The first step of every authenticated route: authenticate and take the route's rate-limit slots in
 * one step, and only then read the body, so an unknown caller's body (up to 1 MiB of JSON) is never
 * read, and an address past its failed-authentication budget is refused before anything else (admit).
 * A body that cannot be read (413, 415, malformed JSON) answers with the headers of the slot it took.
 * A route whose weight is in its body (a batch: a slot per image) authenticates first, reads the body,
 * then takes its slots: all of them, or one if the body cannot be read.
 */
function enter(services: Services, route: RouteDefinition, door: Door) {
  const parse = jsonBody();
  const category = categoryOf(route);
  const weightOf = route.rateLimit?.weight;
  const admitted = (ctx: Context, weight: number) => admit(ctx, door, category, weight);
  return async (ctx: Context, next: Next) => {
    if (!weightOf) {
      await admitted(ctx, 1);
      await parse(ctx, async () => undefined);
      return next();
    }
    await admitted(ctx, 0);
    let unreadable: unknown;
    await parse(ctx, async () => undefined).catch((err: unknown) => {
      unreadable = err;
    });
    const weight = unreadable === undefined ? weightOf((ctx.request as { body?: unknown }).body) : 1;
    await takeSlots(ctx, services.keyGate, category, weight);
    if (unreadable !== undefined) throw unreadable;
    return next();
  };
}

/**
 * The caller may make this request: its role (an API key's, or the one a member's role maps to) is
 * high enough, a tasker's session stays on the routes for taskers, and a session-only route is called
 * with a session.
 */
function authorise(route: RouteDefinition, required: ApiKeyRole) {
  return (ctx: Context, next: Next) => {
    const auth = ctx.state.auth as AuthContext;
    if (route.auth === 'session' && !auth.session)
      throw new NotAllowedError(
        'This operation is for console sessions (a member signed in at /console), not API keys.',
      );
    if (auth.session?.memberRole === 'tasker' && !route.taskers)
      throw new NotAllowedError("A tasker's console session reaches tasks only.", { memberRole: 'tasker' });
    if (!roleAllows(auth.role, required)) throw new ForbiddenError(required, auth.role);
    return next();
  };
}

/** The console's public routes: its own origin only, and an address past its budget refused before the body. */
function consolePublic(door: Door) {
  return async (ctx: Context, next: Next) => {
    await admitAddress(ctx, door);
    if (!sameOrigin(ctx, door.publicUrl)) throw new CsrfError('origin');
    return next();
  };
}

/**
 * Each route runs its own chain, in the order security needs: the caller authenticated and the rate
 * limit of this route's category taken, the role checked, and only then may a stored idempotent
 * answer be replayed. Auth comes from the matched route, never from the path's spelling.
 */
function mount(router: Router, route: RouteDefinition, services: Services, door: Door): void {
  const required = route.role ?? defaultRole(route.method);
  const guards =
    route.auth === false
      ? route.consolePublic
        ? [consolePublic(door), jsonBody()]
        : [jsonBody()]
      : [enter(services, route, door), authorise(route, required), idempotency(() => services.idempotency)];
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
  const { orm, services, commands, temporal, logger, config } = deps;
  const routes = apiRoutes(services, commands);
  const openapi = buildOpenApiDocument(routes);
  const referencePage = renderReferencePage({
    specUrl: `${API_PREFIX}/openapi.json`,
    assetsUrl: `${API_PREFIX}/docs/assets`,
    title: `${(openapi as { info: { title: string } }).info.title} reference`,
  });

  // Behind PROXY_HOPS proxies the client is that many entries from the right of X-Forwarded-For;
  // entries further left are whatever the client wrote and are never trusted.
  const app = new Koa({ proxy: config.TRUST_PROXY, maxIpsCount: config.PROXY_HOPS });
  app.silent = true;

  const health = new Router({ strict: true, sensitive: true });
  health.get('/health/live', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  health.get('/health/ready', async (ctx) => {
    const [database, temporalOk] = await Promise.all([orm.isConnected().catch(() => false), temporalHealthy(temporal)]);
    ctx.status = database && temporalOk ? 200 : 503;
    if (ctx.status === 503) ctx.set('Retry-After', '5');
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
    ctx.set('Content-Security-Policy', referencePage.contentSecurityPolicy);
    ctx.body = referencePage.html;
  });
  docs.get('/docs/assets/*file', async (ctx) => {
    const file = ctx.params.file as string | string[];
    const asset = await referenceAsset(Array.isArray(file) ? file.join('/') : file);
    if (!asset) return; // falls through to the 404
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = asset.body;
  });
  const publicPaths = new Set([`${API_PREFIX}/openapi.json`, `${API_PREFIX}/docs`]);
  const isPublic = (path: string) => publicPaths.has(path) || path.startsWith(`${API_PREFIX}/docs/assets/`);

  const door: Door = {
    keyGate: services.keyGate,
    sessionGate: services.sessionGate,
    limiter: services.rateLimiter,
    authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
    publicUrl: config.PUBLIC_URL,
  };
  const api = new Router(routing);
  for (const route of routes) mount(api, route, services, door);

  app.use(requestLog(logger));
  app.use(errorHandler(logger));
  app.use(health.routes());
  app.use(docs.routes());
  app.use(consoleRouter(config.CONSOLE_DIR ?? defaultConsoleDir()).routes());
  app.use((ctx, next) => RequestContext.create(orm.em, next));
  // Runs last on the way out: anything no router answered is a 404 in the error envelope. Under
  // /api/v1 the caller is still authenticated first (an unknown route without a key is a 401, so
  // routes cannot be probed), and a request no route took (404, 405) draws one read or write, with
  // the headers, so unknown paths are no free way around the limits.
  app.use(async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new NotFoundError(`route ${ctx.method} ${ctx.path}`);
    } catch (err) {
      const status = (err as { status?: number }).status;
      const guarded = ctx.path.startsWith(API_PREFIX) && !isPublic(ctx.path);
      if (guarded && !ctx.state.rateLimited && (status === 404 || status === 405)) {
        const category = ctx.method === 'GET' || ctx.method === 'HEAD' ? 'reads' : 'writes';
        await admit(ctx, door, category, 1);
      }
      throw err;
    }
  });
  app.use(api.routes());
  app.use(
    api.allowedMethods({
      throw: true,
      methodNotAllowed: () => new AppError('METHOD_NOT_ALLOWED', 'This path does not support that method.'),
      notImplemented: () => new AppError('METHOD_NOT_ALLOWED', 'This method is not supported.'),
    }),
  );
  return { app, routes };
}
