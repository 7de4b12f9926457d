import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { bundleName } from '../../test/helpers/node-entry.js';

/**
 * The programs tests start as child processes (the admin CLI, the API, the migrations), each bundled
 * once per `npm test` run, as the workflow code is. Under `--import tsx` every start of one cost some
 * 1.2 s of CPU in tsx's loader on top of the 1.5 s the program's own modules take to load, and the
 * suite starts them about a hundred times. The same esbuild transform tsx applies, into one file per
 * program, our code only (packages stay imports); test/helpers/node-entry.ts picks them up.
 */
export const BUNDLED_ENTRIES = ['src/cli/main.ts', 'src/bin/api.ts', 'scripts/migrate.ts'] as const;

/**
 * Writes the bundles as `<prefix><name>` and returns the prefix (ENTRY_BUNDLE_PREFIX for the test
 * processes). They sit two levels below the repository's root (`.data/test`), as `src/db` does:
 * modules find files next to them by their own URL (orm-config.ts: `../../migrations`), and in a
 * bundle that URL is the bundle's.
 */
export async function writeEntryBundles(root: string, dir: string, tag: string): Promise<string> {
  if (relative(root, dir).split(/[\\/]/).length !== 2) throw new Error(`${dir}: not two levels below ${root}`);
  const prefix = join(dir, `entry-${tag}-`);
  await Promise.all(
    BUNDLED_ENTRIES.map((entry) =>
      build({
        entryPoints: [join(root, entry)],
        outfile: `${prefix}${bundleName(entry)}`,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        packages: 'external',
        logLevel: 'warning',
      }),
    ),
  );
  return prefix;
}
