// Webhook signature verification, for receivers (Node: it uses node:crypto, hence its own entry point,
// `@shelf/client/webhooks`, so the client itself still runs wherever fetch does).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where the service puts the signature: `t=<unix seconds>,v1=<hex>[,v1=<hex>]`. */
export const SIGNATURE_HEADER = 'x-service-signature';
/** The delivery id, also in the signed body as `deliveryId`. */
export const DELIVERY_HEADER = 'x-service-delivery';

/**
 * The body of every delivery and per-request callback (`webhookId` is null on callbacks).
 * `deliveryId` is the same on every retry and redelivery of one delivery: de-duplicate on it.
 */
export type WebhookEvent = {
  event: string;
  data: Record<string, unknown>;
  timestamp: string;
  webhookId: string | null;
  deliveryId: string;
};

export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

/** A Fetch `Headers`, Node's `req.headers`, or the signature header's value itself. */
export type SignatureSource = Headers | Record<string, string | string[] | undefined> | string;

/**
 * Checks a delivery as the service signs it and returns its parsed body: the lowercase hex
 * HMAC-SHA256, keyed with your secret, of `<t>.<raw body>` must equal one of the header's `v1`
 * values, and `t` must lie within `toleranceSec` (default 300) of now. Pass the raw bytes as
 * received (not re-serialised JSON). During a rotation the service sends one `v1` per secret in
 * force, and you may pass both of yours: any match passes. The body's `deliveryId` is signed with
 * it; given the request's headers (not the signature header's value alone), the `X-Service-Delivery`
 * header must equal it, so a captured delivery replayed under another id is refused. De-duplicate on
 * the returned `deliveryId`. Throws `WebhookSignatureError`.
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  headers: SignatureSource,
  secret: string | string[],
  opts: { toleranceSec?: number; now?: Date } = {},
): WebhookEvent {
  const header = typeof headers === 'string' ? headers : headerOf(headers, SIGNATURE_HEADER);
  if (!header) throw new WebhookSignatureError(`Missing ${SIGNATURE_HEADER} header.`);
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && value && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && value && /^[0-9a-f]{64}$/.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === undefined || signatures.length === 0)
    throw new WebhookSignatureError('Malformed signature header.');
  const now = Math.floor((opts.now?.getTime() ?? Date.now()) / 1000);
  if (Math.abs(now - timestamp) > (opts.toleranceSec ?? 300))
    throw new WebhookSignatureError('Signature timestamp outside the tolerance.');
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const keys = Array.isArray(secret) ? secret : [secret];
  // Constant time: the comparison must not tell an attacker how much of a guess was right.
  const matches = keys.some((key) => {
    const expected = createHmac('sha256', key).update(`${timestamp}.`).update(body).digest();
    return signatures.some((given) => timingSafeEqual(given, expected));
  });
  if (!matches) throw new WebhookSignatureError('No signature matches.');
  let event: WebhookEvent;
  try {
    event = JSON.parse(Buffer.from(body).toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookSignatureError('The body is not JSON.');
  }
  if (typeof event?.deliveryId !== 'string' || event.deliveryId === '')
    throw new WebhookSignatureError('The signed body carries no deliveryId.');
  if (typeof headers !== 'string' && headerOf(headers, DELIVERY_HEADER) !== event.deliveryId)
    throw new WebhookSignatureError(`The ${DELIVERY_HEADER} header is not the signed delivery id.`);
  return event;
}

function headerOf(headers: Exclude<SignatureSource, string>, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(entry) ? entry.join(',') : entry;
}
