import type { Context } from 'koa';
import type { ClientInfo } from '../modules/sessions/session.service.js';
import { clientAddressKey } from './client-address.js';

/**
 * The console session's cookie. Over TLS (`ctx.secure`: the connection, or X-Forwarded-Proto from a
 * trusted proxy) it is `__Host-shelf_session`, which browsers accept only when Secure, from the host
 * itself and for the whole path (no subdomain or plain-HTTP page can set or shadow it); over plain
 * HTTP (local development) `shelf_session`. Either way HttpOnly (no script reads it) and
 * SameSite=Strict (no other site's page or link sends it).
 */
const PLAIN = 'shelf_session';
const SECURE = '__Host-shelf_session';

export const CSRF_HEADER = 'X-CSRF-Token';

export function sessionCookieName(ctx: Context): string {
  return ctx.secure ? SECURE : PLAIN;
}

/** The session token the request's cookie carries, if any. */
export function readSessionToken(ctx: Context): string | undefined {
  const token = ctx.cookies.get(sessionCookieName(ctx));
  return token && /^[A-Za-z0-9_-]{20,100}$/.test(token) ? token : undefined;
}

export function setSessionCookie(ctx: Context, token: string, expiresAt: Date): void {
  ctx.cookies.set(sessionCookieName(ctx), token, {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.secure,
    path: '/',
    expires: expiresAt,
    overwrite: true,
  });
}

export function clearSessionCookie(ctx: Context): void {
  ctx.cookies.set(sessionCookieName(ctx), '', {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.secure,
    path: '/',
    expires: new Date(0),
    overwrite: true,
  });
}

/**
 * The origin the request was made to: its scheme and host (from X-Forwarded-Proto and -Host behind a
 * trusted proxy). Not Koa's `ctx.origin`, which in Koa 3 is the request's Origin header.
 */
export function ownOrigin(ctx: Context): string {
  return `${ctx.protocol}://${ctx.host}`;
}

/**
 * Whether the request comes from the service's own pages: its `Origin` is the origin the request was
 * made to, or PUBLIC_URL's. Browsers send Origin with every POST, PATCH and DELETE; a request without
 * one is not the console's and is refused for a session's state change.
 */
export function sameOrigin(ctx: Context, publicUrl: string | undefined): boolean {
  const origin = ctx.get('origin');
  if (!origin || origin === 'null') return false;
  return origin === ownOrigin(ctx) || (publicUrl !== undefined && origin === new URL(publicUrl).origin);
}

/** What a session records of where it was made, and the address budget it counts against. */
export function clientInfo(ctx: Context): ClientInfo {
  return {
    addressKey: clientAddressKey(ctx.ip),
    address: ctx.ip || null,
    userAgent: ctx.get('user-agent') || null,
  };
}

/** The origin links point at: PUBLIC_URL, else the origin this request was made to. */
export function publicOrigin(ctx: Context, publicUrl: string | undefined): string {
  return publicUrl ? new URL(publicUrl).origin : ownOrigin(ctx);
}
