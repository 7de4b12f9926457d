import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The app's root: the nearest directory above this module with a package.json (the checkout, or /app
 * in the image), found the same way from `src/` (tsx) and from `dist/src/` (compiled).
 */
export function appRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('the app root (package.json) was not found above src/lib');
    dir = up;
  }
  return dir;
}
