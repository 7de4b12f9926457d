import { readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Loader, type Plugin } from 'esbuild';

/**
 * Our own code as one file a program, bundled by esbuild, the packages left as imports: every `npm
 * test` process's (its entry module, the test files it imports and all of our modules under them)
 * and `npm start`'s API and worker. Under `--import tsx` a test process spent some 2.5 s of CPU in
 * tsx's loader (its hooks see every module, the packages' too) on top of the 2.5 s its modules take
 * to load, and a run starts thirty such processes (D368); `npm start`'s two, some 3 s (D376). The
 * transform is the one tsx applies to each file, with the same tsconfig.
 */

/**
 * Our modules find files beside them by their own URL (fixtures, migrations, the workflow code, the
 * recognizer's thread): each keeps its own `import.meta.url`, `dirname` and `filename` in the bundle,
 * not the bundle's.
 */
export const ownImportMeta: Plugin = {
  name: 'own-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.(m?[jt]s|tsx)$/ }, async ({ path }) => {
      if (path.includes('/node_modules/')) return undefined;
      const text = await readFile(path, 'utf8');
      if (!text.includes('import.meta.')) return undefined;
      const contents = text
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(path)))
        .replaceAll('import.meta.filename', JSON.stringify(path));
      const loader: Loader =
        ({ '.ts': 'ts', '.tsx': 'tsx', '.mts': 'ts' } as Record<string, Loader>)[extname(path)] ?? 'js';
      return { contents, loader, resolveDir: dirname(path) };
    });
  },
};

/**
 * Bundles each `{ name: source module }` into `<outDir>/<prefix><name>.mjs`, in one esbuild build (the
 * modules they share are read and transformed once), the packages left as imports. Source maps:
 * inline for a test process (run with `--enable-source-maps`, so stacks, failure locations and
 * node:test's file of each test, the run's per-file times and verdict count, name the .ts files, as
 * under tsx); beside the bundle for `npm start`'s programs, read only when a stack is printed.
 */
export async function bundleOwnCode(
  entries: Record<string, string>,
  outDir: string,
  root: string,
  opts: { prefix?: string; sourcemap: 'inline' | 'linked' },
): Promise<void> {
  await build({
    entryPoints: entries,
    outdir: outDir,
    entryNames: `${opts.prefix ?? ''}[name]`,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: opts.sourcemap,
    tsconfig: join(root, 'tsconfig.json'),
    plugins: [ownImportMeta],
    logLevel: 'error',
  });
}
