import { createDocument } from 'zod-openapi';
import { z } from 'zod';
import { typescriptSample } from './code-samples.js';
import { defaultRole, type RouteDefinition } from './route.js';

export const errorSchema = z
  .object({
    error: z.object({
      code: z.string().meta({ example: 'VALIDATION_FAILED' }),
      message: z.string().meta({ example: 'Invalid body: imageUrl: Must be an absolute http(s) URL.' }),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: 'Error' });

const ERROR_STATUS: Record<string, { status: string; description: string }> = {
  AUTH_REQUIRED: {
    status: '401',
    description:
      'AUTH_REQUIRED (no or malformed Authorization header and no console session, or the session ended) or INVALID_API_KEY (unknown or revoked key).',
  },
  INVALID_CREDENTIALS: {
    status: '401',
    description: 'INVALID_CREDENTIALS (sign-in: no member with that e-mail address and password) or INVALID_LINK.',
  },
  INVALID_LINK: {
    status: '401',
    description: 'INVALID_CREDENTIALS (sign-in: no member with that e-mail address and password) or INVALID_LINK.',
  },
  INSUFFICIENT_CREDITS: {
    status: '402',
    description: 'INSUFFICIENT_CREDITS; details: creditsRequired, creditsRemaining.',
  },
  FORBIDDEN: {
    status: '403',
    description:
      "FORBIDDEN: the caller's role is too low (the key's, or the member's in the console), a tasker's session outside tasks, or a console session's change without its CSRF defence (details.reason: origin, csrf_token).",
  },
  NOT_FOUND: { status: '404', description: 'NOT_FOUND: unknown id or an id of another organisation.' },
  CONFLICT: { status: '409', description: 'CONFLICT, INVALID_TRANSITION or IDEMPOTENCY_IN_PROGRESS.' },
  INVALID_TRANSITION: { status: '409', description: 'CONFLICT, INVALID_TRANSITION or IDEMPOTENCY_IN_PROGRESS.' },
  IDEMPOTENCY_IN_PROGRESS: { status: '409', description: 'CONFLICT, INVALID_TRANSITION or IDEMPOTENCY_IN_PROGRESS.' },
  PAYLOAD_TOO_LARGE: { status: '413', description: 'PAYLOAD_TOO_LARGE: body over 1 MiB.' },
  UNSUPPORTED_MEDIA_TYPE: { status: '415', description: 'UNSUPPORTED_MEDIA_TYPE: body is not JSON.' },
  VALIDATION_FAILED: {
    status: '422',
    description: 'VALIDATION_FAILED (details.fields names each field) or IDEMPOTENCY_KEY_REUSED.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: '422',
    description: 'VALIDATION_FAILED (details.fields names each field) or IDEMPOTENCY_KEY_REUSED.',
  },
  RATE_LIMITED: { status: '429', description: 'RATE_LIMITED; Retry-After header; details: retryAfter, limit, window.' },
  INTERNAL_ERROR: { status: '500', description: 'INTERNAL_ERROR; quote X-Request-Id to support.' },
  SERVICE_UNAVAILABLE: {
    status: '503',
    description: 'SERVICE_UNAVAILABLE: database or Temporal unreachable; safe to retry.',
  },
};

function errorCodesFor(route: RouteDefinition): string[] {
  const codes = new Set<string>(['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']);
  if (route.auth !== false) ['AUTH_REQUIRED', 'FORBIDDEN', 'RATE_LIMITED'].forEach((c) => codes.add(c));
  if (route.consolePublic) ['FORBIDDEN', 'RATE_LIMITED'].forEach((c) => codes.add(c));
  if (route.path === '/auth/sign-in') codes.add('INVALID_CREDENTIALS');
  if (route.path.startsWith('/auth/links/')) codes.add('INVALID_LINK');
  if (route.params || route.query || route.body) codes.add('VALIDATION_FAILED');
  if (route.body) ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'].forEach((c) => codes.add(c));
  route.errors?.forEach((c) => codes.add(c));
  return [...codes];
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
    for (const code of errorCodesFor(route)) {
      const { status, description } = ERROR_STATUS[code]!;
      responses[status] = { description, content: { 'application/json': { schema: errorSchema } } };
    }
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
        ...(['post', 'patch'].includes(route.method) && auth
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
