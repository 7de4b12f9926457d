import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('hex')}`;
}

/** Lowercase hex HMAC-SHA256 of `<t>.<raw body>`, keyed with the secret. */
export function computeSignature(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** `t=<unix seconds>,v1=<hex>[,v1=<hex>]`: one v1 per secret in force (two during a rotation). */
export function signatureHeader(secrets: string[], timestamp: number, rawBody: string | Buffer): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${computeSignature(s, timestamp, rawBody)}`)].join(',');
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export const DELIVERY_HEADER = 'X-Service-Delivery';

/** The signature header's value alone, or the request's headers (Node's `req.headers` or Fetch `Headers`). */
export type SignatureSource = string | undefined | null | Headers | Record<string, string | string[] | undefined>;

function headerOf(source: Exclude<SignatureSource, string | undefined | null>, name: string): string | undefined {
  if (source instanceof Headers) return source.get(name) ?? undefined;
  const entry = Object.entries(source).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(entry) ? entry.join(',') : entry;
}

/**
 * For receivers: checks a delivery's X-Service-Signature against the exact raw body bytes. Accepts
 * when any v1 value matches any of your secrets (pass both during your own rotation), within
 * `toleranceSeconds` of now. Compares in constant time. Returns the delivery id the body carries,
 * which the signature covers: de-duplicate on it. Given the request's headers rather than the
 * signature alone, it also refuses a delivery whose X-Service-Delivery differs from that id (a
 * captured delivery replayed under another id). Throws WebhookVerificationError otherwise.
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer,
  headers: SignatureSource,
  secrets: string | string[],
  opts: { toleranceSeconds?: number; now?: number } = {},
): { timestamp: number; deliveryId: string } {
  const header = typeof headers === 'string' || !headers ? headers : headerOf(headers, SIGNATURE_HEADER);
  if (!header) throw new WebhookVerificationError('Missing signature header.');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && value && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && value) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0)
    throw new WebhookVerificationError('Malformed signature header.');
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError('Timestamp outside the tolerance window.');
  }
  const matches = (Array.isArray(secrets) ? secrets : [secrets]).some((secret) => {
    const expected = Buffer.from(computeSignature(secret, timestamp, rawBody), 'utf8');
    return signatures.some((candidate) => {
      const given = Buffer.from(candidate, 'utf8');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  });
  if (!matches) throw new WebhookVerificationError('No signature matches.');
  // Only now is the body trusted enough to read.
  let deliveryId: unknown;
  try {
    deliveryId = (JSON.parse(rawBody.toString()) as { deliveryId?: unknown }).deliveryId;
  } catch {
    throw new WebhookVerificationError('The body is not JSON.');
  }
  if (typeof deliveryId !== 'string' || deliveryId === '')
    throw new WebhookVerificationError('The signed body carries no deliveryId.');
  if (typeof headers === 'object' && headers !== null && headerOf(headers, DELIVERY_HEADER) !== deliveryId)
    throw new WebhookVerificationError(`${DELIVERY_HEADER} is not the signed delivery id.`);
  return { timestamp, deliveryId };
}
