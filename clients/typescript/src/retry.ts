export type RetryOptions = {
  /** Attempts after the first one; 0 turns retrying off. Default 3. */
  retries?: number;
  /** The longest wait the client accepts; a longer `Retry-After` is returned to the caller as is. Default 60 s. */
  maxDelayMs?: number;
  /** First back-off when the answer names no `Retry-After` (doubled on each retry, with jitter). Default 500 ms. */
  baseDelayMs?: number;
};

type Fetch = (request: Request) => Promise<Response>;

/**
 * Wraps fetch with the two behaviours every call wants:
 *
 * - POST and PATCH get an `Idempotency-Key` (a fresh UUID) unless the caller gave one. The key is made
 *   once per logical call and sent again on each retry, so a retried submission is charged once.
 * - 429 and 503 are retried after `Retry-After` (or a back-off), at most `retries` times. A network
 *   error is retried too: every request is safe to repeat, reads by nature and writes by their key.
 *   So is a 409 `IDEMPOTENCY_IN_PROGRESS` on a retry: the first attempt reached the service and is
 *   still running; the next attempt gets its answer.
 */
export function retryingFetch(fetchImpl: typeof fetch, options: RetryOptions = {}): Fetch {
  const retries = options.retries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const baseDelayMs = options.baseDelayMs ?? 500;

  return async (original) => {
    let request = original;
    if ((request.method === 'POST' || request.method === 'PATCH') && !request.headers.has('idempotency-key')) {
      const headers = new Headers(request.headers);
      headers.set('Idempotency-Key', randomKey());
      request = new Request(request, { headers });
    }
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries;
      let response: Response;
      try {
        // Each attempt sends a copy: a request body can be read only once.
        response = await fetchImpl(last ? request : request.clone());
      } catch (err) {
        if (last || request.signal.aborted) throw err;
        await sleep(backoff(baseDelayMs, attempt), request.signal);
        continue;
      }
      if (last || !(await retryable(response, attempt))) return response;
      const delay = retryAfterMs(response) ?? backoff(baseDelayMs, attempt);
      if (delay > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}

/**
 * A random UUID (v4). `crypto.randomUUID` exists only in secure contexts: a console opened over plain
 * HTTP at a server's address has `getRandomValues` but not it.
 */
function randomKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

async function retryable(response: Response, attempt: number): Promise<boolean> {
  if (response.status === 429 || response.status === 503) return true;
  if (response.status !== 409 || attempt === 0) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { error?: { code?: string } } | null;
  return body?.error?.code === 'IDEMPOTENCY_IN_PROGRESS';
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function backoff(baseDelayMs: number, attempt: number): number {
  return baseDelayMs * 2 ** attempt * (0.5 + Math.random() / 2);
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
