import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * ~/.cache/shelf-service (XDG_CACHE_HOME honoured): what is built or unpacked once per machine and
 * kept, the Temporal binaries (scripts/temporal.ts) and the native OCR engine's helper and model.
 */
export function cacheDir(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'shelf-service');
}
