import { createClient, ShelfApiError, type Body } from '../../clients/typescript/src/index.js';

/**
 * The console's one door to the service: the public API through the typed client, with the member's
 * session (the browser sends its cookie; every change carries the session's CSRF token). Nothing
 * here reads the database or calls anything the API does not offer.
 */
let csrfToken: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Told when an answer says the session has ended (401), so the console can ask for a sign-in. */
const sessionEndedListeners = new Set<() => void>();
export function onSessionEnded(listener: () => void): () => void {
  sessionEndedListeners.add(listener);
  return () => sessionEndedListeners.delete(listener);
}

/** Requests that answer 401 by design (a wrong password, a used link): not a session that ended. */
const PUBLIC = /\/api\/v1\/auth\/(sign-in|links\/)/;

async function watchingFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  const url = input instanceof Request ? input.url : String(input);
  if (response.status === 401 && !PUBLIC.test(url)) for (const listener of sessionEndedListeners) listener();
  return response;
}

export const api = createClient({
  baseUrl: location.origin,
  session: { csrfToken: () => csrfToken },
  fetch: watchingFetch,
  // A person is waiting: one retry at most, and never a long wait (the error says when to try again).
  retries: { retries: 1, maxDelayMs: 5000 },
});

export type ConsoleSession = Body<'get', '/api/v1/auth/session'>['data'];
export type Analysis = Body<'get', '/api/v1/analyses/{id}'>['data'];
export type AnalysisRow = Body<'get', '/api/v1/analyses'>['data'][number];
export type Product = Analysis['products'][number];
export type Delivery = Body<'get', '/api/v1/webhooks/{id}/deliveries'>['data'][number];
export type Webhook = Body<'get', '/api/v1/webhooks/{id}'>['data'];
export type WebhookRow = Body<'get', '/api/v1/webhooks'>['data'][number];
export type ApiKey = Body<'get', '/api/v1/api-keys'>['data'][number];
export type Usage = Body<'get', '/api/v1/usage'>['data'];
export type DailyUsage = Body<'get', '/api/v1/usage/daily'>['data'];
export type Task = Body<'get', '/api/v1/tasks/{id}'>['data'];
export type TaskRow = Body<'get', '/api/v1/tasks'>['data'][number];
export type Alert = Body<'get', '/api/v1/alerts/{id}'>['data'];
export type Member = Body<'get', '/api/v1/members'>['data'][number];
export type Invitation = Body<'get', '/api/v1/members/invitations'>['data'][number];

/** The analysis' photo as an object URL (the page's policy loads images from the service and blob: only). */
export async function analysisImageUrl(id: string, signal?: AbortSignal): Promise<string | null> {
  const { data, response } = await api.raw.GET('/api/v1/analyses/{id}/image', {
    params: { path: { id } },
    parseAs: 'blob',
    signal,
  });
  if (response.status === 404) return null;
  if (!response.ok || !(data instanceof Blob)) throw new ShelfApiError(response.status, null, response.headers);
  return URL.createObjectURL(data);
}

export { ShelfApiError };

/** What to tell a person about a failed request, and what they can do next. */
export function describeError(err: unknown): { title: string; detail: string; retry: boolean } {
  if (err instanceof ShelfApiError) {
    const ref = err.requestId ? ` (request ${err.requestId})` : '';
    switch (err.status) {
      case 403:
        return {
          title: 'Not allowed',
          detail: `${err.message} Ask an owner of your organisation if you need this.`,
          retry: false,
        };
      case 404:
        return {
          title: 'Not found',
          detail: `${err.message} It may have been deleted; go back to the list.`,
          retry: false,
        };
      case 409:
      case 422:
        return { title: 'Refused', detail: fieldMessages(err) ?? err.message, retry: false };
      case 429:
        return {
          title: 'Too many requests',
          detail: `Try again in ${err.retryAfter ?? 60} seconds. ${err.message}`,
          retry: true,
        };
      case 503:
        return {
          title: 'The service is unavailable',
          detail: `Nothing was changed. Try again in a few seconds${ref}.`,
          retry: true,
        };
      default:
        if (err.status >= 500)
          return {
            title: 'Something went wrong on our side',
            detail: `Try again; if it keeps failing, quote the request id to support${ref}.`,
            retry: true,
          };
        return { title: 'Request failed', detail: `${err.message}${ref}`, retry: false };
    }
  }
  return {
    title: 'The service could not be reached',
    detail: 'Check your connection, then try again.',
    retry: true,
  };
}

/** A 422's field messages, one line each: what to fix. */
function fieldMessages(err: ShelfApiError): string | undefined {
  const fields = (err.details as { fields?: { field: string; message: string }[] } | undefined)?.fields;
  if (!fields?.length) return undefined;
  return fields.map((f) => `${f.field.replace(/^(body|query)\./, '')}: ${f.message}`).join(' ');
}
