import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, normalize, sep } from 'node:path';

/**
 * The interactive API reference: Scalar's standalone bundle, served from node_modules (no CDN, so it
 * works on closed networks), rendering /api/v1/openapi.json, the document generated from the routes.
 * Request examples in curl, Node's fetch and our TypeScript client (clients/typescript: each operation's
 * `x-codeSamples`, src/http/code-samples.ts).
 */
// The package's main entry is dist/index.js; the browser bundle sits beside it in dist/browser.
const assetsDir = join(dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')), 'browser');

/**
 * The page and the Content-Security-Policy to send with it. The policy allows what the page really
 * loads, all of it from the service itself, and nothing else: Scalar's own defaults point at its hosted
 * proxy and services, and `connect-src 'self'` makes "nothing leaves the service" a rule the browser
 * enforces rather than a configuration we hope covers every feature. The two inline scripts (Zod's
 * setting and the call that mounts the reference) are allowed by their hashes; Scalar sets styles from script (its themes and
 * component styles), hence `style-src 'unsafe-inline'`, which runs nothing.
 */
export function renderReferencePage(opts: { specUrl: string; assetsUrl: string; title: string }): {
  html: string;
  contentSecurityPolicy: string;
} {
  const config = {
    url: opts.specUrl,
    // No web fonts (they would come from a CDN); no hosted extras.
    withDefaultFonts: false,
    hideClientButton: true,
    showDeveloperTools: 'never',
    agent: { disabled: true },
    defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
    // curl and Node's fetch only: the two a client of this API uses (plus our TypeScript client, from x-codeSamples).
    hiddenClients: {
      shell: ['httpie', 'wget'],
      node: ['axios', 'ofetch', 'undici'],
      js: true,
      python: true,
      go: true,
      c: true,
      csharp: true,
      java: true,
      kotlin: true,
      objc: true,
      ocaml: true,
      php: true,
      powershell: true,
      r: true,
      ruby: true,
      rust: true,
      swift: true,
      clojure: true,
      dart: true,
      fsharp: true,
      http: true,
      julia: true,
    },
  };
  // Zod in Scalar's bundle probes for eval (`new Function('')`) unless told it is jitless (its setting
  // for pages under a CSP; read from this global, shared by every copy of Zod): the probe would be a
  // violation, and the page does not need eval.
  const jitless = 'globalThis.__zod_globalConfig = { jitless: true };';
  // `<` escaped: the configuration can never close the script element it sits in.
  const mount = `Scalar.createApiReference('#app', ${JSON.stringify(config).replace(/</g, '\\u003c')});`;
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>${opts.title.replace(/[<&]/g, '')}</title></head>
<body>
<div id="app"></div>
<script>${jitless}</script>
<script src="${opts.assetsUrl}/standalone.js"></script>
<script>${mount}</script>
</body>
</html>`;
  const hash = (script: string) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src 'self' ${hash(jitless)} ${hash(mount)}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy };
}

/** A file of Scalar's browser bundle (the script and the chunks it loads), or null outside it. */
export async function referenceAsset(name: string): Promise<{ body: Buffer; type: string } | null> {
  const path = normalize(join(assetsDir, name));
  if (!path.startsWith(assetsDir + sep) || !/\.(js|css|map)$/.test(path)) return null;
  try {
    const body = await readFile(path);
    return {
      body,
      type: path.endsWith('.css') ? 'text/css' : path.endsWith('.map') ? 'application/json' : 'text/javascript',
    };
  } catch {
    return null;
  }
}
