import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PATTERN = /^svc_live_[0-9a-f]{64}$/;

export function generateApiKey(): string {
  return `svc_live_${randomBytes(32).toString('hex')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** What listings show: enough to recognise a key, far too little to use it. */
export function displayPrefix(key: string): string {
  return key.slice(0, 'svc_live_'.length + 6);
}
