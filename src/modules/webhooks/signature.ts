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

/**
 * For receivers: checks a delivery's X-Service-Signature against the exact raw body bytes. Accepts
 * when any v1 value matches any of your secrets (pass both during your own rotation), within
 * `toleranceSeconds` of now. Compares in constant time. Throws WebhookVerificationError otherwise.
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer,
  header: string | undefined | null,
  secrets: string | string[],
  opts: { toleranceSeconds?: number; now?: number } = {},
): { timestamp: number } {
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
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    const expected = Buffer.from(computeSignature(secret, timestamp, rawBody), 'utf8');
    for (const candidate of signatures) {
      const given = Buffer.from(candidate, 'utf8');
      if (given.length === expected.length && timingSafeEqual(given, expected)) return { timestamp };
    }
  }
  throw new WebhookVerificationError('No signature matches.');
}
