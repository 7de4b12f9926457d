import { Agent, request, type Dispatcher } from 'undici';
import { resolveOutbound, type ResolvedTarget } from './address-guard.js';
import { withClientSpan } from '../tracing.js';

export type OutboundResponse = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** True when the body was longer than maxBytes and was cut. */
  truncated: boolean;
  finalUrl: string;
};

export type OutboundRequest = {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: Buffer | string;
  timeoutMs: number;
  maxBytes: number;
  /** Redirects to follow, each re-checked; 0 = answer with the 3xx itself. */
  maxRedirects?: number;
  /** Above maxBytes: throw (image fetch) or cut and flag (webhook response excerpts). */
  onOversize?: 'throw' | 'truncate';
  /**
   * A 2xx is the answer, its body only an excerpt (webhooks): the body is kept if it came with the
   * status line (the usual case), and not waited for otherwise (answered empty and `truncated`), so
   * that the caller records the 2xx at once, not after a body that trickles or never ends.
   */
  answerOnStatus?: boolean;
  allowPrivate: boolean;
};

export class OversizeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`Response larger than ${maxBytes} bytes`);
    this.name = 'OversizeError';
  }
}

/**
 * Pinned agents, kept for their connections: a webhook endpoint or an image host is asked again and
 * again, and a connection per request cost a TCP handshake (and for https a TLS one) every time.
 * Keyed by the address the guard checked for this request (and the timeout), so a kept connection only
 * ever goes to an address the guard allowed; a host whose DNS moves gets a new agent, checked first.
 * At most MAX_AGENTS, the least recently used closed first (after its requests finish); idle
 * connections close after undici's keep-alive timeout (4 s) and never hold the process open.
 */
const MAX_AGENTS = 64;
const agents = new Map<string, Agent>();

function agentFor(target: ResolvedTarget, timeoutMs: number): Agent {
  const key = `${target.family}|${target.address}|${timeoutMs}`;
  const kept = agents.get(key);
  if (kept) {
    // Most recently used last: Map keeps insertion order.
    agents.delete(key);
    agents.set(key, kept);
    return kept;
  }
  const agent = pinnedAgent(target, timeoutMs);
  agents.set(key, agent);
  if (agents.size > MAX_AGENTS) {
    const [oldest, old] = agents.entries().next().value as [string, Agent];
    agents.delete(oldest);
    void old.close().catch(() => undefined);
  }
  return agent;
}

/** A dispatcher whose every connection goes to the address we checked, whatever DNS says later. */
function pinnedAgent(target: ResolvedTarget, timeoutMs: number): Agent {
  return new Agent({
    connect: {
      timeout: timeoutMs,
      lookup: (_host, _opts, cb) =>
        cb(null, [{ address: target.address, family: target.family }] as never, undefined as never),
    },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}

async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number, onOversize: 'throw' | 'truncate') {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    if (size + buf.length > maxBytes) {
      if (onOversize === 'throw') {
        body.destroy();
        throw new OversizeError(maxBytes);
      }
      chunks.push(buf.subarray(0, maxBytes - size));
      body.destroy();
      return { data: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(buf);
    size += buf.length;
  }
  return { data: Buffer.concat(chunks), truncated: false };
}

/**
 * Every outbound HTTP request of the product (image fetches, webhooks, callbacks) goes through here:
 * address guard per hop, pinned connection, hard timeout, capped body.
 */
export function outboundRequest(rawUrl: string, opts: OutboundRequest): Promise<OutboundResponse> {
  let host = 'invalid';
  try {
    host = new URL(rawUrl).host;
  } catch {
    // requestOnce refuses it with its own error
  }
  const method = opts.method ?? 'GET';
  return withClientSpan(`HTTP ${method}`, { 'http.request.method': method, 'server.address': host }, async (span) => {
    const res = await requestOnce(rawUrl, opts);
    span?.setAttribute('http.response.status_code', res.status);
    return res;
  });
}

async function requestOnce(rawUrl: string, opts: OutboundRequest): Promise<OutboundResponse> {
  let url = rawUrl;
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  for (let hop = 0; ; hop++) {
    const target = await resolveOutbound(url, opts.allowPrivate);
    const agent = agentFor(target, opts.timeoutMs);
    const res = await request(target.url, {
      method: opts.method ?? 'GET',
      headers: opts.headers,
      body: opts.body,
      dispatcher: agent,
      signal: deadline,
    });
    const location = res.headers.location;
    if (
      res.statusCode >= 300 &&
      res.statusCode < 400 &&
      typeof location === 'string' &&
      hop < (opts.maxRedirects ?? 0)
    ) {
      res.body.destroy();
      url = new URL(location, target.url).toString();
      continue;
    }
    const answered = { status: res.statusCode, headers: res.headers, finalUrl: target.url.toString() };
    const reading = readCapped(res.body, opts.maxBytes, opts.onOversize ?? 'throw');
    if (opts.answerOnStatus && res.statusCode >= 200 && res.statusCode < 300) {
      // A body that came with the status line is read by the time the promise jobs and ticks of this
      // turn have run; setImmediate fires after them, before any further I/O is waited for.
      const arrived = await Promise.race([reading, new Promise<undefined>((r) => setImmediate(r, undefined))]);
      if (arrived) return { ...answered, body: arrived.data, truncated: arrived.truncated };
      reading.catch(() => undefined);
      res.body.destroy();
      return { ...answered, body: Buffer.alloc(0), truncated: true };
    }
    const { data, truncated } = await reading;
    return { ...answered, body: data, truncated };
  }
}
