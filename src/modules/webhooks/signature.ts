// Signing, the service's side. Verifying is the receiver's: `verifyWebhookSignature` in the client
// (`@shelf/client/webhooks`, clients/typescript/src/webhooks.ts) is the one verifier, tests included.
import { createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';

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
