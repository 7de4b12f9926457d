import type { Context } from 'koa';
import { dataEnvelope, defineRoute, listEnvelope } from '../../http/route.js';
import {
  clearSessionCookie,
  clientInfo,
  publicOrigin,
  readSessionToken,
  setSessionCookie,
} from '../../http/session-cookie.js';
import type { AuthContext } from '../../http/auth-context.js';
import type { Organisation } from '../organisations/organisation.entity.js';
import type { User } from '../members/member.entity.js';
import {
  changePasswordBody,
  consoleSessionSchema,
  inspectLinkBody,
  passwordChangedSchema,
  linkInfoSchema,
  redeemLinkBody,
  signedInSessionSchema,
  signedOutSchema,
  signInBody,
} from './session.schemas.js';
import type { MemberLinkKind, Session } from './session.entity.js';
import { csrfTokenFor, memberLinkUrl, type SessionService, type SignedIn } from './session.service.js';

const tag = 'Console sessions';

function render(
  sessions: SessionService,
  s: { session: Session; user: User; organisation: Organisation },
  token: string,
) {
  return {
    data: {
      member: { userId: s.user.id, name: s.user.name, email: s.user.email, role: s.user.role },
      organisation: { id: s.organisation.id, name: s.organisation.name, plan: s.organisation.plan },
      access:
        s.user.role === 'owner'
          ? ('admin' as const)
          : s.user.role === 'member'
            ? ('write' as const)
            : ('tasks' as const),
      csrfToken: csrfTokenFor(token),
      session: {
        id: s.session.id,
        createdAt: s.session.createdAt.toISOString(),
        expiresAt: s.session.expiresAt.toISOString(),
        idleTimeoutSeconds: Math.round(sessions.settings.idleTimeoutMs / 1000),
      },
      temporalUi: sessions.settings.temporalUi,
    },
  };
}

/** A new session's cookie on the answer, and the session as the console reads it. */
function signedIn(ctx: Context, sessions: SessionService, s: SignedIn) {
  setSessionCookie(ctx, s.token, s.session.expiresAt);
  // Nothing about a session may be kept by a cache between the browser and us.
  ctx.set('Cache-Control', 'no-store');
  return { status: 201, body: render(sessions, s, s.token) };
}

const sessionOf = (auth: AuthContext) => auth.session!;

export function sessionRoutes(sessions: SessionService) {
  return [
    defineRoute({
      method: 'post',
      path: '/auth/sign-in',
      operationId: 'signIn',
      summary: 'Sign a member in to the console (sets the session cookie)',
      description:
        "E-mail and password to a session: an HttpOnly, SameSite=Strict cookie (Secure over TLS) that the API accepts in place of an API key, for the console's own requests. Refused unless sent from the service's own origin (Origin header). Throttled per client address (failed authentications) and per account (SIGN_IN_FAILURES_PER_MINUTE failed sign-ins); a wrong e-mail address and a wrong password answer alike, 401 INVALID_CREDENTIALS. An address that is a member of several organisations gets 409 CONFLICT listing them (details.organisations) once its password matched: send organisationId.",
      tag,
      auth: false,
      consolePublic: true,
      body: signInBody,
      status: 201,
      response: dataEnvelope(consoleSessionSchema),
      errors: ['CONFLICT'],
      handler: async ({ body, ctx }) => signedIn(ctx, sessions, await sessions.signIn(body, clientInfo(ctx))),
    }),
    defineRoute({
      method: 'get',
      path: '/auth/session',
      operationId: 'getSession',
      summary: 'The signed-in member, their organisation and access, and the CSRF token',
      tag,
      auth: 'session',
      taskers: true,
      status: 200,
      response: dataEnvelope(consoleSessionSchema),
      handler: async ({ auth, ctx }) => {
        ctx.set('Cache-Control', 'no-store');
        return { body: render(sessions, await sessions.describe(sessionOf(auth).id), readSessionToken(ctx)!) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/auth/sessions',
      operationId: 'listSessions',
      summary: "The member's sessions still signed in, newest first",
      tag,
      auth: 'session',
      taskers: true,
      status: 200,
      response: listEnvelope(signedInSessionSchema),
      handler: async ({ auth }) => {
        const rows = await sessions.listForUser(sessionOf(auth).userId);
        return {
          body: {
            data: rows.map((s) => ({
              id: s.id,
              createdAt: s.createdAt.toISOString(),
              lastSeenAt: s.lastSeenAt.toISOString(),
              expiresAt: s.expiresAt.toISOString(),
              userAgent: s.userAgent ?? null,
              address: s.address ?? null,
              current: s.id === sessionOf(auth).id,
            })),
            pagination: { cursor: null, hasMore: false },
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/sign-out',
      operationId: 'signOut',
      summary: 'End this session (on the server, and its cookie)',
      tag,
      auth: 'session',
      taskers: true,
      status: 200,
      response: dataEnvelope(signedOutSchema),
      handler: async ({ auth, ctx }) => {
        await sessions.signOut(sessionOf(auth).id);
        clearSessionCookie(ctx);
        return { body: { data: { sessionsEnded: 1 } } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/sign-out-everywhere',
      operationId: 'signOutEverywhere',
      summary: 'End every session of the member, in every browser, this one included',
      tag,
      auth: 'session',
      taskers: true,
      status: 200,
      response: dataEnvelope(signedOutSchema),
      handler: async ({ auth, ctx }) => {
        const ended = await sessions.signOutEverywhere(sessionOf(auth).userId);
        clearSessionCookie(ctx);
        return { body: { data: { sessionsEnded: ended } } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/password',
      operationId: 'changePassword',
      summary: 'Change your own password (your other sessions end)',
      description:
        "The current password is required (a wrong one is 422 on `currentPassword`), and throttled as a sign-in is: failed tries count against the client address's failed-authentication budget and the account's SIGN_IN_FAILURES_PER_MINUTE, past which the answer is 429. The member's other sessions end; this one goes on. A session only (an API key is refused).",
      tag,
      auth: 'session',
      taskers: true,
      body: changePasswordBody,
      status: 200,
      response: dataEnvelope(passwordChangedSchema),
      handler: async ({ auth, body, ctx }) => ({
        body: { data: await sessions.changePassword(sessionOf(auth), body, clientInfo(ctx)) },
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/auth/links/inspect',
      operationId: 'inspectMemberLink',
      summary: 'What a sign-in or invitation link is for (changes nothing)',
      description:
        "The console's set-password page shows it before the password is chosen. An unknown, used or expired link is 401 INVALID_LINK.",
      tag,
      auth: false,
      consolePublic: true,
      body: inspectLinkBody,
      status: 200,
      response: dataEnvelope(linkInfoSchema),
      handler: async ({ body, ctx }) => {
        const info = await sessions.inspectLink(body.token, clientInfo(ctx));
        return {
          body: {
            data: {
              kind: info.kind,
              email: info.email,
              organisation: { id: info.organisation.id, name: info.organisation.name },
              expiresAt: info.expiresAt.toISOString(),
            },
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/auth/links/redeem',
      operationId: 'redeemMemberLink',
      summary: 'Set a password with a sign-in or invitation link, and sign in',
      description:
        "A sign-in link sets the member's password and ends their other sessions; an invitation link makes the invited person a member (name required). The link works once.",
      tag,
      auth: false,
      consolePublic: true,
      body: redeemLinkBody,
      status: 201,
      response: dataEnvelope(consoleSessionSchema),
      errors: ['CONFLICT', 'NOT_FOUND'],
      handler: async ({ body, ctx }) =>
        signedIn(ctx, sessions, await sessions.redeemLink(body.token, body, clientInfo(ctx))),
    }),
  ];
}

/**
 * A link's answer: its URL (PUBLIC_URL's origin, or the request's), mailed to its person with
 * SMTP_URL set (then left out of the answer), and when it stops working.
 */
export async function handOverMemberLink(
  ctx: Context,
  sessions: SessionService,
  link: { kind: MemberLinkKind; organisationId: string; to: string; token: string; expiresAt: Date },
) {
  const url = memberLinkUrl(publicOrigin(ctx, sessions.settings.publicUrl), link.token);
  return {
    ...(await sessions.handOver(link.kind, link.organisationId, link.to, url, link.expiresAt)),
    expiresAt: link.expiresAt.toISOString(),
  };
}
