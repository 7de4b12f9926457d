import { createDocument } from 'zod-openapi';
import { z } from 'zod';
import { typescriptSample } from './code-samples.js';
import { defaultRole, type RouteDefinition } from './route.js';
import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../lib/errors.js';

/** A code as the document tells it. */
export function said(code: ErrorCode): string {
  return `${code}: ${ERROR_CATALOGUE[code].description}`;
}

/** The codes no operation answers with (errors.ts: noOperation): told once, beside the code's values. */
const unrouted = ERROR_CODES.filter((c) => 'noOperation' in ERROR_CATALOGUE[c])
  .map((c) => `${said(c)} (HTTP ${ERROR_CATALOGUE[c].status})`)
  .join(' ');

export const errorSchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES).meta({
        example: 'VALIDATION_FAILED',
        description: `What went wrong, as a program reads it. Each operation's responses list the codes it answers with; a request no operation receives is answered with one of these: ${unrouted}`,
      }),
      message: z.string().meta({ example: 'Invalid body: imageUrl: Must be an absolute http(s) URL.' }),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: 'Error' });

/** The codes an operation can answer with: those every route of its kind has, and its own. */
function errorCodesFor(route: RouteDefinition): ErrorCode[] {
  const codes = new Set<ErrorCode>(['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']);
  const add = (...c: ErrorCode[]) => c.forEach((code) => codes.add(code));
  if (route.auth !== false) add('AUTH_REQUIRED', 'FORBIDDEN', 'RATE_LIMITED');
  // An API key is refused as such wherever one is taken (not on session-only routes).
  if (route.auth !== false && route.auth !== 'session') add('INVALID_API_KEY');
  if (route.consolePublic) add('FORBIDDEN', 'RATE_LIMITED');
  if (route.path === '/auth/sign-in') add('INVALID_CREDENTIALS');
  if (route.path.startsWith('/auth/links/')) add('INVALID_LINK');
  if (route.params || route.query || route.body) add('VALIDATION_FAILED');
  if (route.body) add('PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  // The Idempotency-Key header, documented on these (idempotency.ts): a key still running, or reused.
  if (idempotent(route)) add('IDEMPOTENCY_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED');
  route.errors?.forEach((c) => codes.add(c));
  return ERROR_CODES.filter((c) => codes.has(c));
}

/** One response for each status: the description of every code of the operation's that answers it. */
function errorResponses(route: RouteDefinition): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  for (const code of errorCodesFor(route)) {
    const { status } = ERROR_CATALOGUE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), said(code)]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, descriptions]) => [
      String(status),
      { description: descriptions.join(' '), content: { 'application/json': { schema: errorSchema } } },
    ]),
  );
}

function idempotent(route: RouteDefinition): boolean {
  return ['post', 'patch'].includes(route.method) && route.auth !== false;
}

/** Who may call an operation, in its description. */
function accessNote(route: RouteDefinition, role: string): string {
  if (route.auth === false)
    return route.consolePublic
      ? "Public (the console's): from the service's own origin only."
      : 'Public: no API key needed.';
  if (route.auth === 'session') return 'Requires a console session (any member role); API keys are refused.';
  const taskers = route.taskers ? " A tasker's console session may call it too." : '';
  return `Requires an API key with the \`${role}\` role or higher, or a console session whose member role maps to it (owner: admin, member: write).${taskers}`;
}

function responseHeaders(auth: boolean) {
  const headers: Record<string, { description: string; schema: { type: 'string' | 'integer'; format?: string } }> = {
    'X-Request-Id': { description: 'Unique id of this request (UUID).', schema: { type: 'string', format: 'uuid' } },
  };
  if (auth) {
    headers['X-RateLimit-Limit'] = {
      description: 'Requests allowed per 60 s in this category.',
      schema: { type: 'integer' },
    };
    headers['X-RateLimit-Remaining'] = {
      description: 'Requests left in the current window.',
      schema: { type: 'integer' },
    };
    headers['X-RateLimit-Reset'] = {
      description: 'Unix seconds when the window frees a slot.',
      schema: { type: 'integer' },
    };
  }
  return headers;
}

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
export function buildOpenApiDocument(routes: RouteDefinition[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const auth = route.auth !== false;
    const responses: Record<string, unknown> = {
      [String(route.status)]: {
        description: route.responseDescription ?? 'Success.',
        headers: responseHeaders(auth),
        content: { [route.responseContentType ?? 'application/json']: { schema: route.response } },
      },
    };
    Object.assign(responses, errorResponses(route));
    const role = route.role ?? defaultRole(route.method);
    const path = `/api/v1${route.path}`;
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      description: [route.description, accessNote(route, role)].filter(Boolean).join('\n\n'),
      tags: [route.tag],
      ...(auth ? (route.auth === 'session' ? { security: [{ consoleSession: [] }] } : {}) : { security: [] }),
      requestParams: {
        ...(route.params ? { path: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(idempotent(route)
          ? {
              header: z.object({
                'Idempotency-Key': z.string().max(255).optional().meta({
                  description:
                    'Repeat-safe key: the same request with the same key within 24 hours replays the first answer.',
                }),
              }),
            }
          : {}),
      },
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } }
        : {}),
      responses,
      // Shown by the reference page (Scalar) beside its generated curl and fetch examples.
      'x-codeSamples': [{ lang: 'typescript', label: 'TypeScript client', source: typescriptSample(route) }],
    };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Shelf Analysis Service API',
      version: '1.0.0',
      description:
        'Turns shelf photos into structured retail data. Every path is under /api/v1; bodies are JSON; single objects come as `{ data }` and lists as `{ data, pagination: { cursor, hasMore } }`; errors as `{ error: { code, message, details? } }`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }, { consoleSession: [] }],
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'API key: `svc_live_` followed by 64 lowercase hex characters.',
        },
        consoleSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'shelf_session',
          description:
            "The console's session (`__Host-shelf_session` over TLS), set by POST /api/v1/auth/sign-in, accepted in place of an API key for the console's own requests. Every POST, PATCH and DELETE made with it must come from the service's own origin (Origin header) and carry `X-CSRF-Token` (from the sign-in answer or GET /api/v1/auth/session). An owner's session has the admin role, a member's write, a tasker's reaches task routes only.",
        },
      },
    },
    paths: paths as never,
  });
}
