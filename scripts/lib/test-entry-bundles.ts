import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleName } from '../../test/helpers/node-entry.js';
import { ownImportMeta } from './own-code-bundles.js';

/**
 * The programs tests start as child processes (the admin CLI, the API, the migrations), each bundled
 * once per `npm test` run, as the workflow code is. Under `--import tsx` every start of one cost some
 * 1.2 s of CPU in tsx's loader on top of the 1.5 s the program's own modules take to load, and the
 * suite starts them about a hundred times. The same esbuild transform tsx applies, into one file per
 * program with most of its packages; test/helpers/node-entry.ts picks them up.
 */
/** Packages left as imports in the bundles: what loads files by its own path, and drivers never installed. */
const KEEP_EXTERNAL = [
  'sharp',
  '@img/*',
  '@node-rs/*',
  '@temporalio/worker',
  '@temporalio/core-bridge',
  '@temporalio/core-bridge/*',
  'onnxruntime-node',
  'onnxruntime-*',
  'piscina',
  'tesseract.js',
  'pino',
  'pino-pretty',
  'thread-stream',
  'esbuild',
  // MikroORM checks that its packages' versions agree, from their package.json files.
  '@mikro-orm/*',
  'knex',
  '@scalar/*',
  'pg-native',
  'pg-query-stream',
  'better-sqlite3',
  'sqlite3',
  'mysql',
  'mysql2',
  'oracledb',
  'tedious',
  'libsql',
  'mariadb',
  'ts-node',
];

/**
 * The test worker (test/helpers/worker-process.ts) too: the durability tests start a dozen. Its local
 * recognizer's threads run their module from the sources, with tsx's loader (recognition-pool.ts).
 */
export const BUNDLED_ENTRIES = [
  'src/cli/main.ts',
  'src/bin/api.ts',
  'scripts/migrate.ts',
  'test/helpers/worker-process.ts',
] as const;

/**
 * Writes the bundles as `<prefix><name>` and returns the prefix (ENTRY_BUNDLE_PREFIX for the test
 * processes). Each of our modules keeps its own URL in them (ownImportMeta), so the migrations, the
 * recognizer's threads and fixtures are found beside the sources wherever the bundle is.
 */
export async function writeEntryBundles(root: string, dir: string, tag: string): Promise<string> {
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
        // Packages bundled too, bar those that load files of their own (native addons, worker
        // threads, migrations, transports) and optional drivers: resolving and parsing hundreds of
        // package modules was most of a start's CPU (the CLI's `--help` 1.3 → 1.0 s, D269).
        external: KEEP_EXTERNAL,
        plugins: [ownImportMeta],
        // Bundled CommonJS packages require Node's built-ins.
        banner: {
          js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
        },
        logLevel: 'error',
      }),
    ),
  );
  return prefix;
}
