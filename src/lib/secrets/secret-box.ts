import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync } from 'node:crypto';

/**
 * Encryption at rest for the secrets we must be able to use again (webhook signing secrets,
 * callback secrets, stored idempotent answers that carry a new key or secret).
 *
 * AES-256-GCM under a key from configuration (`SECRETS_KEY`). The nonce is derived from the
 * plaintext (HMAC under a separate sub-key, as in SIV): the same secret always seals to the same
 * text, so the ORM's change detection sees no change when nothing changed, and a nonce is only
 * ever reused for an identical plaintext, which reveals nothing but that equality. The sealed form
 * names its key by a short id, so several keys can be configured at once: the first seals, all open
 * (key rotation: add the new key first, re-seal, then drop the old one).
 */
const PREFIX = 'sealed1';

type Key = { id: string; enc: Buffer; nonce: Buffer };

function deriveKey(raw: Buffer): Key {
  const sub = (info: string) => Buffer.from(hkdfSync('sha256', raw, Buffer.alloc(0), info, 32));
  return {
    id: createHash('sha256').update(raw).digest('hex').slice(0, 8),
    enc: sub('shelf-service secrets: encryption'),
    nonce: sub('shelf-service secrets: nonce'),
  };
}

/** `SECRETS_KEY`: one or more comma-separated keys, each 32 bytes as 64 hex characters or base64. */
export function parseSecretKeys(value: string): Buffer[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const raw = /^[0-9a-fA-F]{64}$/.test(s) ? Buffer.from(s, 'hex') : Buffer.from(s, 'base64');
      if (raw.length !== 32) throw new Error('each SECRETS_KEY entry must be 32 bytes (64 hex characters or base64)');
      return raw;
    });
}

export class SecretBox {
  private readonly keys: Key[];

  constructor(rawKeys: Buffer[]) {
    if (rawKeys.length === 0) throw new Error('SecretBox needs at least one key');
    this.keys = rawKeys.map(deriveKey);
  }

  static isSealed(value: string): boolean {
    return value.startsWith(`${PREFIX}.`);
  }

  seal(plain: string): string {
    const key = this.keys[0]!;
    const data = Buffer.from(plain, 'utf8');
    const iv = createHmac('sha256', key.nonce).update(data).digest().subarray(0, 12);
    const cipher = createCipheriv('aes-256-gcm', key.enc, iv);
    const body = Buffer.concat([iv, cipher.update(data), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}.${key.id}.${body.toString('base64url')}`;
  }

  open(sealed: string): string {
    const [prefix, id, body] = sealed.split('.');
    if (prefix !== PREFIX || !id || body === undefined) throw new Error('not a sealed value');
    const key = this.keys.find((k) => k.id === id);
    if (!key) throw new Error(`sealed with key ${id}, which is not configured in SECRETS_KEY`);
    const raw = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key.enc, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
  }

  /** How every value sealed with the key that seals now begins (nothing to re-seal). */
  get currentPrefix(): string {
    return `${PREFIX}.${this.keys[0]!.id}.`;
  }
}
