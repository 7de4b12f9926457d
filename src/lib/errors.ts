/**
 * One error base class for everything the API can answer with. Services throw these; the HTTP
 * layer maps them to a response in exactly one place (src/http/error-handler.ts).
 */
export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class AuthRequiredError extends AppError {
  constructor(message = 'Missing or malformed Authorization header; expected "Bearer svc_live_<64 hex>".') {
    super('AUTH_REQUIRED', 401, message);
  }
}

export class InvalidApiKeyError extends AppError {
  constructor() {
    super('INVALID_API_KEY', 401, 'The API key is invalid or has been revoked.');
  }
}

/** No console session cookie, or its session ended (signed out, idle, too old, member removed). */
export class SessionRequiredError extends AppError {
  constructor() {
    super(
      'AUTH_REQUIRED',
      401,
      'No console session, or it has ended (signed out, expired, or the member was removed): sign in again.',
    );
  }
}

/** A sign-in whose e-mail address and password match no member: one answer for both, so it tells nothing. */
export class InvalidCredentialsError extends AppError {
  constructor() {
    super('INVALID_CREDENTIALS', 401, 'The e-mail address or the password is wrong.');
  }
}

/** A sign-in or invitation link that is unknown, used, replaced or past its time. */
export class InvalidLinkError extends AppError {
  constructor() {
    super(
      'INVALID_LINK',
      401,
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
    super('RATE_LIMITED', 429, `Rate limit exceeded: ${r.limit} ${what}. Retry after ${r.retryAfter} s.`, {
      retryAfter: r.retryAfter,
      limit: r.limit,
      window: '60s',
    } satisfies ErrorDetails);
  }
}

export class InsufficientCreditsError extends AppError {
  constructor(creditsRequired: number, creditsRemaining: number) {
    super('INSUFFICIENT_CREDITS', 402, `This request needs ${creditsRequired} credit(s); ${creditsRemaining} remain.`, {
      creditsRequired,
      creditsRemaining,
    });
  }
}

export class ForbiddenError extends AppError {
  constructor(required: string, actual: string) {
    super(
      'FORBIDDEN',
      403,
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
      403,
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
    super('FORBIDDEN', 403, message, details);
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string, id?: string) {
    super('NOT_FOUND', 404, id ? `No ${resource} with id '${id}'.` : `${resource} not found.`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super('CONFLICT', 409, message, details);
  }
}

export class InvalidTransitionError extends AppError {
  constructor(resource: string, from: string, to: string, allowed: readonly string[]) {
    super('INVALID_TRANSITION', 409, `A ${resource} cannot move from '${from}' to '${to}'.`, {
      from,
      to,
      allowed: [...allowed],
    });
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super('PAYLOAD_TOO_LARGE', 413, `The request body is larger than ${limitBytes} bytes.`, { limitBytes });
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(received: string | undefined) {
    super('UNSUPPORTED_MEDIA_TYPE', 415, 'Request bodies must be JSON (Content-Type: application/json).', {
      contentType: received ?? null,
    });
  }
}

export type FieldIssue = { field: string; message: string; code?: string };

export class ValidationError extends AppError {
  constructor(message: string, issues: FieldIssue[]) {
    super('VALIDATION_FAILED', 422, message, { fields: issues });
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
    super('SERVICE_UNAVAILABLE', 503, message);
  }
}

export class InternalError extends AppError {
  constructor() {
    super('INTERNAL_ERROR', 500, 'An unexpected error occurred. Quote the X-Request-Id header to support.');
  }
}
