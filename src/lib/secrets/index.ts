import { createHash } from 'node:crypto';
import { config, KEYLESS_ENVIRONMENTS, SECRETS_KEY_MISSING } from '../../config.js';
import { parseSecretKeys, SecretBox } from './secret-box.js';

export { SecretBox } from './secret-box.js';

/**
 * Only with NODE_ENV=development or test may SECRETS_KEY be missing: values are then sealed under this
 * key, derived from a string in the repository, so anyone can open them. Any other environment
 * refuses to start without SECRETS_KEY (config.ts); the check here stands behind that one.
 */
const DEVELOPMENT_KEY = createHash('sha256')
  .update('shelf-service development secrets key (not for production)')
  .digest();

let box: SecretBox | undefined;

/** The process's secret box, from SECRETS_KEY, built on first use. */
export function secretBox(): SecretBox {
  if (!box) {
    const { SECRETS_KEY, NODE_ENV } = config();
    if (SECRETS_KEY) box = new SecretBox(parseSecretKeys(SECRETS_KEY));
    else if (KEYLESS_ENVIRONMENTS.includes(NODE_ENV ?? '')) box = new SecretBox([DEVELOPMENT_KEY]);
    else throw new Error(SECRETS_KEY_MISSING);
  }
  return box;
}
