import type { Context } from 'koa';
import type { ErrorCode } from '../lib/errors.js';
import { z } from 'zod';
import type { ApiKeyRole } from '../modules/api-keys/api-key.entity.js';
import type { AuthContext } from './auth-context.js';
import type { RateLimitCategory } from '../modules/organisations/plans.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

export type HandlerInput<P, Q, B> = {
  params: Infer<P>;
  query: Infer<Q>;
  body: Infer<B>;
  auth: AuthContext;
  ctx: Context;
};

export type HandlerResult = { status?: number; body: unknown; headers?: Record<string, string> };

export type RouteDefinition<
  P extends z.ZodType | undefined = any,
  Q extends z.ZodType | undefined = any,
  B extends z.ZodType | undefined = any,
> = {
  method: HttpMethod;
  /** OpenAPI-style path below /api/v1, e.g. `/places/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Minimum key role; defaults from the method (GET read, POST/PATCH write, DELETE admin). */
  role?: ApiKeyRole;
  /**
   * Who may call: by default an API key or a console session (a signed-in member, in place of a key);
   * `'session'`: a console session only (signing out, the session itself); false: anyone (the OpenAPI
   * document, the console's sign-in and links).
   */
  auth?: boolean | 'session';
  /** A tasker's console session may call it (taskers reach tasks only; docs/decisions.md, Console). */
  taskers?: boolean;
  /**
   * A public route of the console (sign-in, links): refused unless it comes from the service's own
   * origin, and, like an authenticated route, refused before its body is read when the client
   * address is past its failed-authentication budget.
   */
  consolePublic?: boolean;
  /**
   * Which rate-limit bucket the route draws from and how many slots a request takes; by default
   * GET is a read and everything else a write, one slot each.
   */
  rateLimit?: { category: RateLimitCategory; weight?: (body: unknown) => number };
  params?: P;
  query?: Q;
  body?: B;
  status: number;
  response: z.ZodType;
  /** The success answer's media type when it is not JSON (an image: `response` then describes its bytes). */
  responseContentType?: string;
  responseDescription?: string;
  /** Codes (src/lib/errors.ts) this operation answers with beyond the ones every route of its kind has (openapi.ts). */
  errors?: ErrorCode[];
  handler: (input: HandlerInput<P, Q, B>) => Promise<HandlerResult>;
};

export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(route: RouteDefinition<P, Q, B>): RouteDefinition<P, Q, B> {
  return route;
}

export function defaultRole(method: HttpMethod): ApiKeyRole {
  if (method === 'get') return 'read';
  if (method === 'delete') return 'admin';
  return 'write';
}

/** `/places/{id}` -> `/places/:id` for the router. */
export function toRouterPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** Envelopes shared by every response. */
export function dataEnvelope<S extends z.ZodType>(schema: S) {
  return z.object({ data: schema });
}

export const paginationSchema = z
  .object({ cursor: z.string().nullable(), hasMore: z.boolean() })
  .meta({ id: 'Pagination' });

export function listEnvelope<S extends z.ZodType>(schema: S) {
  return z.object({ data: z.array(schema), pagination: paginationSchema });
}

export const deletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'Deleted' });

export const idParams = (example: string) =>
  z.object({ id: z.string().min(1).max(100).meta({ description: 'Resource id.', example }) });
