import { createHash } from 'node:crypto';
import { config } from '../../config.js';
import { parseSecretKeys, SecretBox } from './secret-box.js';

export { SecretBox } from './secret-box.js';

/**
 * Outside production a missing SECRETS_KEY falls back to a fixed development key, so a bare
 * `npm run start:api` still works; production refuses to start without one (config.ts).
 */
const DEVELOPMENT_KEY = createHash('sha256')
  .update('shelf-service development secrets key (not for production)')
  .digest();

let box: SecretBox | undefined;

/** The process's secret box, from SECRETS_KEY, built on first use. */
export function secretBox(): SecretBox {
  if (!box) {
    const value = config().SECRETS_KEY;
    box = new SecretBox(value ? parseSecretKeys(value) : [DEVELOPMENT_KEY]);
  }
  return box;
}
