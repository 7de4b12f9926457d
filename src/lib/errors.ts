/**
 * Every error code the API answers with, its HTTP status and what it means: the one table the error
 * classes below take their status from, the OpenAPI document its error responses and its `Error.code`
 * values (src/http/openapi.ts), and routes the codes they declare (`ErrorCode`). A test checks that
 * every code thrown is here and in the document (test/http/error-catalogue.test.ts). `noOperation`:
 * the answer to a request no operation receives (not HTTP, an unknown method), so the document lists
 * it with the codes rather than under an operation. The document says each as `<code>: <description>`.
 */
export const ERROR_CATALOGUE = {
  MALFORMED_REQUEST: { status: 400, description: 'the request is not valid HTTP/1.1.', noOperation: true },
  AUTH_REQUIRED: {
    status: 401,
    description: 'no or malformed Authorization header and no console session, or the session ended.',
  },
  INVALID_API_KEY: { status: 401, description: 'unknown or revoked key.' },
  INVALID_CREDENTIALS: { status: 401, description: 'sign-in with no member of that e-mail address and password.' },
  INVALID_LINK: { status: 401, description: 'the link is unknown, used, replaced or expired.' },
  INSUFFICIENT_CREDITS: { status: 402, description: 'not enough credits; details: creditsRequired, creditsRemaining.' },
  FORBIDDEN: {
    status: 403,
    description:
      "the caller's role is too low (the key's, or the member's in the console), a tasker's session outside tasks, or a console session's change without its CSRF defence (details.reason: origin, csrf_token).",
  },
  NOT_FOUND: { status: 404, description: 'unknown id or an id of another organisation.' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'the path does not support that method.', noOperation: true },
  CONFLICT: { status: 409, description: 'the request contradicts the current state.' },
  INVALID_TRANSITION: { status: 409, description: 'the status cannot move there; details: from, to, allowed.' },
  IDEMPOTENCY_IN_PROGRESS: {
    status: 409,
    description: 'a request with this Idempotency-Key is still being processed.',
  },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'body over 1 MiB.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'body is not JSON.' },
  VALIDATION_FAILED: { status: 422, description: 'details.fields names each field.' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, description: 'this Idempotency-Key came with a different request.' },
  RATE_LIMITED: {
    status: 429,
    description: 'too many requests; Retry-After header; details: retryAfter, limit, window.',
  },
  REQUEST_HEADERS_TOO_LARGE: {
    status: 431,
    description: 'the request line and headers exceed 16 KiB.',
    noOperation: true,
  },
  INTERNAL_ERROR: { status: 500, description: 'unexpected; quote X-Request-Id to support.' },
  SERVICE_UNAVAILABLE: { status: 503, description: 'database or Temporal unreachable; safe to retry.' },
} as const satisfies Record<string, { status: number; description: string; noOperation?: true }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}

export type ErrorDetails = Record<string, unknown>;

/**
 * One error base class for everything the API can answer with. Services throw these; the HTTP
 * layer maps them to a response in exactly one place (src/http/error-handler.ts). The status is the
 * code's, from the catalogue.
 */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = new.target.name;
    this.status = ERROR_CATALOGUE[code].status;
  }
}

export class AuthRequiredError extends AppError {
  constructor(message = 'Missing or malformed Authorization header; expected "Bearer svc_live_<64 hex>".') {
    super('AUTH_REQUIRED', message);
  }
}

export class InvalidApiKeyError extends AppError {
  constructor() {
    super('INVALID_API_KEY', 'The API key is invalid or has been revoked.');
  }
}

/** No console session cookie, or its session ended (signed out, idle, too old, member removed). */
export class SessionRequiredError extends AppError {
  constructor() {
    super(
      'AUTH_REQUIRED',
      'No console session, or it has ended (signed out, expired, or the member was removed): sign in again.',
    );
  }
}

/** A sign-in whose e-mail address and password match no member: one answer for both, so it tells nothing. */
export class InvalidCredentialsError extends AppError {
  constructor() {
    super('INVALID_CREDENTIALS', 'The e-mail address or the password is wrong.');
  }
}

/** A sign-in or invitation link that is unknown, used, replaced or past its time. */
export class InvalidLinkError extends AppError {
  constructor() {
    super(
      'INVALID_LINK',
      'This link is unknown, already used, replaced by a newer one, or expired: ask an owner for a new one.',
    );
  }
}

/**
 * Too many requests in a rolling 60-second window: an API key's category, a client address's failed
 * authentications, or an account's failed sign-ins. The HTTP layer sends `Retry-After` from its details.
 */
export class RateLimitedError extends AppError {
  constructor(r: { limit: number; retryAfter: number }, what = 'requests per 60 s in this category') {
    super('RATE_LIMITED', `Rate limit exceeded: ${r.limit} ${what}. Retry after ${r.retryAfter} s.`, {
      retryAfter: r.retryAfter,
      limit: r.limit,
      window: '60s',
    } satisfies ErrorDetails);
  }
}

export class InsufficientCreditsError extends AppError {
  constructor(creditsRequired: number, creditsRemaining: number) {
    super('INSUFFICIENT_CREDITS', `This request needs ${creditsRequired} credit(s); ${creditsRemaining} remain.`, {
      creditsRequired,
      creditsRemaining,
    });
  }
}

export class ForbiddenError extends AppError {
  constructor(required: string, actual: string) {
    super(
      'FORBIDDEN',
      `This operation needs the '${required}' role (an API key's, or a member's in the console); this caller has '${actual}'.`,
      {
        requiredRole: required,
        keyRole: actual,
      },
    );
  }
}

/**
 * A console session's state change without the defence against cross-site requests: an `Origin` that
 * is not the service's own, or no `X-CSRF-Token` matching the session. Nothing was changed.
 */
export class CsrfError extends AppError {
  constructor(reason: 'origin' | 'csrf_token') {
    super(
      'FORBIDDEN',
      reason === 'origin'
        ? 'A console session may change things only from the console itself (this request came from another origin, or named none).'
        : 'This change needs the X-CSRF-Token header of the console session; reload the console and try again.',
      { reason },
    );
  }
}

/** Refused by who the caller is rather than by a key role: a tasker outside tasks, a key on a session-only route. */
export class NotAllowedError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('FORBIDDEN', message, details);
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string, id?: string) {
    super('NOT_FOUND', id ? `No ${resource} with id '${id}'.` : `${resource} not found.`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('CONFLICT', message, details);
  }
}

export class InvalidTransitionError extends AppError {
  constructor(resource: string, from: string, to: string, allowed: readonly string[]) {
    super('INVALID_TRANSITION', `A ${resource} cannot move from '${from}' to '${to}'.`, {
      from,
      to,
      allowed: [...allowed],
    });
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super('PAYLOAD_TOO_LARGE', `The request body is larger than ${limitBytes} bytes.`, { limitBytes });
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(received: string | undefined) {
    super('UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be JSON (Content-Type: application/json).', {
      contentType: received ?? null,
    });
  }
}

export type FieldIssue = { field: string; message: string; code?: string };

export class ValidationError extends AppError {
  constructor(message: string, issues: FieldIssue[]) {
    super('VALIDATION_FAILED', message, { fields: issues });
  }
}

/** A body field naming an id of another organisation, or of nobody: one issue of a 422 on that field. */
export function unknownReference(field: string, what: string, id: string): FieldIssue {
  return { field, message: `No ${what} with id '${id}'.`, code: 'unknown_reference' };
}

/** The 422 for a body whose fields are each fine but name things that are not there (one message listing them). */
export function invalidReferences(issues: FieldIssue[]): ValidationError {
  return new ValidationError(`Invalid body: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, issues);
}

export class ServiceUnavailableError extends AppError {
  constructor(message = 'A backing service is unavailable; the request was not completed and is safe to retry.') {
    super('SERVICE_UNAVAILABLE', message);
  }
}

export class InternalError extends AppError {
  constructor() {
    super('INTERNAL_ERROR', 'An unexpected error occurred. Quote the X-Request-Id header to support.');
  }
}
