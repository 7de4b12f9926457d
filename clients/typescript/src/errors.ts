/** The service's error body: `{ error: { code, message, details? } }`. */
export type ApiErrorBody = { error: { code: string; message: string; details?: Record<string, unknown> } };

/**
 * Any answer outside 2xx, carrying the spec's error shape: `code` (e.g. `RATE_LIMITED`,
 * `VALIDATION_FAILED`), `message`, `details`, the HTTP status and the `X-Request-Id` to quote to support.
 */
export class ShelfApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  readonly requestId: string | null;
  /** Seconds from `Retry-After`, on 429 and 503. */
  readonly retryAfter: number | undefined;

  constructor(status: number, body: unknown, headers: Headers) {
    // A body not in the error shape (a proxy's HTML page, say) still gives a usable error.
    const error = isErrorBody(body)
      ? body.error
      : { code: `HTTP_${status}`, message: String(body ?? '').slice(0, 200) };
    super(error.message || `HTTP ${status}`);
    this.name = 'ShelfApiError';
    this.status = status;
    this.code = error.code;
    this.details = 'details' in error ? error.details : undefined;
    this.requestId = headers.get('x-request-id');
    const retryAfter = Number(headers.get('retry-after'));
    this.retryAfter = headers.has('retry-after') && Number.isFinite(retryAfter) ? retryAfter : undefined;
  }

  /** The error body as the service sent it (or as close as the answer allows). */
  toJSON(): ApiErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

/** `waitForAnalysis` gave up before the analysis reached a final status. */
export class ShelfTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShelfTimeoutError';
  }
}

function isErrorBody(body: unknown): body is ApiErrorBody {
  const error = (body as ApiErrorBody | null)?.error;
  return typeof error === 'object' && error !== null && typeof error.code === 'string';
}
