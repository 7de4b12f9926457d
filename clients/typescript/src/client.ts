import createFetchClient, {
  type Client,
  type ClientPathsWithMethod,
  type MaybeOptionalInit,
  type MethodResponse,
} from 'openapi-fetch';
import { ShelfApiError, ShelfTimeoutError } from './errors.js';
import type { paths } from './generated/schema.js';
import { retryingFetch, sleep, type RetryOptions } from './retry.js';

export type ShelfClientOptions = {
  /** Where the service runs, e.g. `https://shelf.example.com`; paths carry their `/api/v1`. */
  baseUrl: string;
  /** `svc_live_…`, sent as `Authorization: Bearer`. Give it, or `session`. */
  apiKey?: string;
  /**
   * In a browser on the service's own origin (its console): the member's session, whose cookie the
   * browser sends; every POST, PATCH and DELETE carries its CSRF token (`X-CSRF-Token`), read from
   * here at each request (it is the sign-in answer's, or GET /api/v1/auth/session's).
   */
  session?: { csrfToken: () => string | undefined };
  /** Another fetch (a proxy agent, instrumentation); defaults to the global one. */
  fetch?: typeof fetch;
  /** Retries on 429/503 and network errors: a count, or the full options. Default 3. */
  retries?: number | RetryOptions;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
};

type Raw = Client<paths>;
type Method = 'get' | 'post' | 'patch' | 'delete';
type PathOf<M extends Method> = ClientPathsWithMethod<Raw, M>;
type InitOf<M extends Method, P extends PathOf<M>> = MaybeOptionalInit<paths[P], M>;
// The options argument may be left out exactly when nothing in it is required.
type Args<I> = undefined extends I ? [init?: I] : [init: I];
/** The success body of an operation, e.g. `Body<'get', '/api/v1/analyses/{id}'>`. */
export type Body<M extends Method, P extends PathOf<M>> = MethodResponse<Raw, M, P>;
type Call<M extends Method> = <P extends PathOf<M>>(path: P, ...init: Args<InitOf<M, P>>) => Promise<Body<M, P>>;

/** GET paths answering `{ data: [...], pagination: { cursor, hasMore } }`. */
export type ListPath = {
  [P in PathOf<'get'>]: Body<'get', P> extends { data: unknown[]; pagination: { cursor: string | null } } ? P : never;
}[PathOf<'get'>];
export type ListItem<P extends ListPath> = Body<'get', P>['data'][number];
export type ListParams<P extends ListPath> = NonNullable<InitOf<'get', P>>['params'];

export type Analysis = Body<'get', '/api/v1/analyses/{id}'>['data'];

export type ShelfClient = {
  /** Typed calls: resolve to the success body, throw `ShelfApiError` on any other answer. */
  get: Call<'get'>;
  post: Call<'post'>;
  patch: Call<'patch'>;
  delete: Call<'delete'>;
  /** Every item of a list, page after page (following `pagination.cursor`), fetched as you iterate. */
  paginate<P extends ListPath>(path: P, params?: ListParams<P>): AsyncGenerator<ListItem<P>>;
  /** Polls an analysis until it is `completed` or `failed` and returns it (with its products). */
  waitForAnalysis(id: string, opts?: { timeoutMs?: number; pollMs?: number; signal?: AbortSignal }): Promise<Analysis>;
  /** The openapi-fetch client underneath (same auth, keys and retries), answering `{ data, error, response }`. */
  raw: Raw;
};

/** The session's CSRF token on every request that changes something; reads go without it. */
function withCsrf(fetchImpl: typeof fetch, csrfToken: () => string | undefined): typeof fetch {
  return (input, init) => {
    const request = new Request(input, init);
    const token = csrfToken();
    if (request.method === 'GET' || request.method === 'HEAD' || !token) return fetchImpl(request);
    const headers = new Headers(request.headers);
    headers.set('X-CSRF-Token', token);
    return fetchImpl(new Request(request, { headers }));
  };
}

export function createClient(options: ShelfClientOptions): ShelfClient {
  if ((options.apiKey === undefined) === (options.session === undefined))
    throw new TypeError('createClient: give an apiKey or a session, one of the two.');
  const retry = typeof options.retries === 'number' ? { retries: options.retries } : options.retries;
  // The global fetch looked up at each call, not bound now: a test or a page may replace it later.
  const base: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const raw = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}) },
    fetch: retryingFetch(options.session ? withCsrf(base, options.session.csrfToken) : base, retry),
  });

  const call =
    <M extends Method>(method: M): Call<M> =>
    async (path, ...init) => {
      const verb = method.toUpperCase() as Uppercase<M>;
      const { data, error, response } = await (raw[verb] as (p: string, i?: unknown) => Promise<any>)(path, init[0]);
      if (error !== undefined || !response.ok) throw new ShelfApiError(response.status, error, response.headers);
      return data;
    };
  const client: ShelfClient = {
    get: call('get'),
    post: call('post'),
    patch: call('patch'),
    delete: call('delete'),
    async *paginate(path, params) {
      let cursor: string | undefined;
      do {
        const query = { ...(params as { query?: object } | undefined)?.query, ...(cursor ? { cursor } : {}) };
        const page = await (client.get as (p: string, i: unknown) => Promise<any>)(path, {
          params: { ...params, query },
        });
        yield* page.data;
        cursor = page.pagination.hasMore ? (page.pagination.cursor ?? undefined) : undefined;
      } while (cursor);
    },
    async waitForAnalysis(id, opts = {}) {
      const deadline = Date.now() + (opts.timeoutMs ?? 300_000);
      for (;;) {
        const { data } = await client.get('/api/v1/analyses/{id}', {
          params: { path: { id } },
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
        if (data.status !== 'processing') return data;
        const left = deadline - Date.now();
        if (left <= 0)
          throw new ShelfTimeoutError(`Analysis ${id} still processing after ${opts.timeoutMs ?? 300_000} ms.`);
        await sleep(Math.min(opts.pollMs ?? 1000, left), opts.signal);
      }
    },
    raw,
  };
  return client;
}
