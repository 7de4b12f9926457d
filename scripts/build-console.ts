// Part of `npm run build` (and of `npm start`): the console (console/src, Preact) bundled with esbuild
// into dist/console: index.html and content-hashed assets, nothing fetched from anywhere at run time.
// The API serves them at /console (src/http/console-app.ts).
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
export const DEFAULT_CONSOLE_DIR = join(root, 'dist', 'console');

/** Builds the console into `outDir` (replacing what was there); the asset names it wrote. */
export async function buildConsole(outDir = DEFAULT_CONSOLE_DIR): Promise<{ script: string; style: string }> {
  const assets = join(outDir, 'assets');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(assets, { recursive: true });
  const result = await build({
    entryPoints: { console: join(root, 'console', 'src', 'main.tsx') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome109', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    entryNames: '[name]-[hash]',
    outdir: assets,
    metafile: true,
    logLevel: 'warning',
    // The typed client's retry and webhook code never reads Node's environment; a bundle has none.
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
  const script = outputs.find((f) => f.endsWith('.js'));
  const style = outputs.find((f) => f.endsWith('.css'));
  if (!script || !style)
    throw new Error(`console build: expected a script and a stylesheet, got ${outputs.join(', ')}`);
  // No inline script or style: the page's policy allows files from the service only.
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Shelf console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/${style}">
<script type="module" src="/console/assets/${script}"></script>
</head>
<body>
<div id="app"><noscript>The Shelf console needs JavaScript.</noscript></div>
</body>
</html>
`;
  await writeFile(join(outDir, 'index.html'), html);
  const written = await readdir(assets);
  if (!written.includes(script)) throw new Error('console build: the script was not written');
  return { script, style };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = process.argv[2] ? resolve(process.argv[2]) : DEFAULT_CONSOLE_DIR;
  const { script, style } = await buildConsole(out);
  console.log(`console: ${out} (${script}, ${style})`);
}
