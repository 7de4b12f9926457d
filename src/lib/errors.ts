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
    super('FORBIDDEN', 403, `This operation needs an API key with the '${required}' role; this key has '${actual}'.`, {
      requiredRole: required,
      keyRole: actual,
    });
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
