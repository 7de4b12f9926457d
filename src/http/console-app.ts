import { readFile } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { appRoot } from '../lib/app-root.js';
import { NotFoundError } from '../lib/errors.js';

/** Where `npm run build` (and `npm start`) writes the console: dist/console under the app's root. */
export function defaultConsoleDir(): string {
  return join(appRoot(), 'dist', 'console');
}

/**
 * The console's policy: everything from the service itself and nothing else. Scripts and styles are
 * files (no inline code, no eval), images are the service's or the photo previews the page turns into
 * blob: URLs, requests go to the service only, and no other site may frame the console or receive its
 * forms. A page that tried to load anything from elsewhere would be refused by the browser.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

function secure(ctx: Context) {
  ctx.set('Content-Security-Policy', CONSOLE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  // The set-password link's token is in the fragment, never in a Referer; nothing else leaks either.
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
  ctx.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
}

/**
 * Serves the console from `dir` (its index.html and hashed assets) at /console: every path under it is
 * the same page (the console routes in the browser), assets are immutable (their names change with
 * their content). Public: the page holds no data; everything it shows comes from the API, which
 * authenticates each request. Without a build, /console says how to make one.
 */
export function consoleRouter(dir: string): Router {
  const router = new Router({ strict: true, sensitive: true });
  const page = async (ctx: Context) => {
    secure(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    try {
      ctx.body = await readFile(join(dir, 'index.html'));
    } catch {
      ctx.status = 503;
      ctx.body =
        '<!doctype html><meta charset="utf-8"><title>Console not built</title><p>The console has not been built. Run <code>npm run build</code> (<code>npm start</code> builds it too), then reload.</p>';
    }
  };
  router.get('/', (ctx) => ctx.redirect('/console'));
  router.get('/console/assets/:file', async (ctx) => {
    const file = String(ctx.params.file);
    const type = TYPES[file.slice(file.lastIndexOf('.'))];
    const path = normalize(join(dir, 'assets', file));
    if (!type || !path.startsWith(join(dir, 'assets') + sep)) throw new NotFoundError('console asset', file);
    try {
      ctx.body = await readFile(path);
    } catch {
      throw new NotFoundError('console asset', file);
    }
    secure(ctx);
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  });
  router.get('/console', page);
  router.get('/console/', page);
  router.get('/console/*rest', page);
  return router;
}
