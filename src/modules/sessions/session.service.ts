import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ConflictError,
  InvalidCredentialsError,
  InvalidLinkError,
  NotFoundError,
  RateLimitedError,
  ValidationError,
} from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { Mailer } from '../../lib/outbound/mailer.js';
import { Invitation, User, type MemberRole } from '../members/member.entity.js';
import type { MemberService } from '../members/member.service.js';
import type { InviteInput } from '../members/member.schemas.js';
import { Organisation, type PlanTier } from '../organisations/organisation.entity.js';
import type { RateLimiter } from '../rate-limits/rate-limiter.js';
import { hashPassword, PasswordCheck } from './password.js';
import { MemberLink, Session, type MemberLinkKind } from './session.entity.js';
import type { SessionRepository } from './session.repository.js';

export type SessionSettings = {
  /** A session unused this long ends. */
  idleTimeoutMs: number;
  /** A session ends this long after sign-in, however active. */
  maxAgeMs: number;
  /** Failed sign-ins allowed per e-mail address per rolling minute. */
  signInFailuresPerMinute: number;
  /** Failed authentications allowed per client address per rolling minute (AUTH_FAILURES_PER_MINUTE). */
  authFailuresPerMinute: number;
  /** PUBLIC_URL: the origin of links; unset, the origin a request was made to. */
  publicUrl?: string;
  /** Where the console links a workflow to (TEMPORAL_UI_URL and the namespace); null: no link. */
  temporalUi: { url: string; namespace: string } | null;
};

/** Where a request comes from: its address's budget key (clientAddressKey), the address and browser to show. */
export type ClientInfo = { addressKey: string; address: string | null; userAgent: string | null };

/** Where links are mailed (SMTP_URL); null: no mail, the links are handed back. */
export type LinkMail = { mailer: Mailer; logger: Logger } | null;

/** What became of a link: mailed to its person, or to be handed over by whoever asked for it. */
export type HandedOver = { link: string | null; mailedTo: string | null; mailError: string | null };

/** A session just made: the token goes into the cookie and nowhere else. */
export type SignedIn = { session: Session; token: string; user: User; organisation: Organisation };

/** Who a session is, as every request resolves it. */
export type SessionOwner = {
  sessionId: string;
  userId: string;
  organisationId: string;
  memberRole: MemberRole;
  plan: PlanTier;
  customLimits: { rateLimits?: Record<string, number>; maxBatchSize?: number } | null;
  expiresAt: Date;
};

/** How long links stay good: a sign-in link is for now, an invitation waits for its reader. */
export const LINK_TTL_MS: Record<MemberLinkKind, number> = {
  sign_in: 24 * 3600 * 1000,
  invitation: 7 * 24 * 3600 * 1000,
};

/** How many organisations one e-mail address is tried in at a sign-in (each try is an argon2 verify). */
const MAX_SIGN_IN_CANDIDATES = 20;

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');
const newToken = () => randomBytes(32).toString('base64url');

/** Where a link's token goes: the console's set-password page, in the fragment (never sent to a server). */
export function memberLinkUrl(origin: string, token: string): string {
  return `${origin}/console/set-password#token=${token}`;
}

/**
 * The console's CSRF token for a session: derived from the session's own token (HMAC), so nothing
 * more is stored, it cannot be known without the cookie, and it changes with every session.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('shelf console csrf v1').digest('base64url');
}

export function csrfTokenMatches(sessionToken: string, sent: string | undefined): boolean {
  if (!sent) return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const given = Buffer.from(sent);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Console sign-in: passwords, server-side sessions and one-time links (docs/decisions.md, Console).
 * Sessions stand in for API keys on the console's requests (SessionGate); everything here is about
 * making, resolving and ending them.
 */
/** What SessionService uses (src/services.ts builds it once per process). */
export type SessionServiceDeps = {
  em: EntityManager;
  limiter: RateLimiter;
  members: MemberService;
  settings: SessionSettings;
  /** How links reach members (SMTP_URL); null: the API answers with the link instead. */
  mail?: LinkMail;
};

export class SessionService {
  private readonly em: EntityManager;
  private readonly limiter: RateLimiter;
  private readonly members: MemberService;
  readonly settings: SessionSettings;
  private readonly mail: LinkMail;
  private readonly passwords = new PasswordCheck();

  constructor({ em, limiter, members, settings, mail = null }: SessionServiceDeps) {
    this.em = em;
    this.limiter = limiter;
    this.members = members;
    this.settings = settings;
    this.mail = mail;
  }

  private addressBucket(client: ClientInfo) {
    return `authfail:${client.addressKey}`;
  }

  /** An address past its failed-authentication budget is refused before anything is looked up. */
  async assertAddressBudget(client: ClientInfo): Promise<void> {
    const window = await this.limiter.check(this.addressBucket(client), this.settings.authFailuresPerMinute);
    if (!window.allowed) throw new RateLimitedError(window, 'failed authentications a minute from this address');
  }

  /** A failure counts against the address (as a bad API key does) and, for a sign-in, the account. */
  private async countFailure(client: ClientInfo, email?: string): Promise<void> {
    await this.limiter.consume(this.addressBucket(client), this.settings.authFailuresPerMinute);
    if (email) await this.limiter.consume(`signin:${email}`, this.settings.signInFailuresPerMinute);
  }

  /**
   * E-mail and password to a new session. Throttled per address (the API's failed-authentication
   * budget) and per account (failed sign-ins of this e-mail address a minute, whoever sends them). One
   * person may be a member of several organisations, each membership with its own password: every
   * membership whose password matches is a candidate, and when there are several the caller must
   * name one (409 with the list, given only to someone who knows a password).
   */
  async signIn(
    input: { email: string; password: string; organisationId?: string },
    client: ClientInfo,
  ): Promise<SignedIn> {
    const email = input.email.trim().toLowerCase();
    await this.assertAddressBudget(client);
    const account = await this.limiter.check(`signin:${email}`, this.settings.signInFailuresPerMinute);
    if (!account.allowed) throw new RateLimitedError(account, 'failed sign-ins a minute for this account');
    const candidates = await this.members.signInCandidates(email, input.organisationId ?? null, MAX_SIGN_IN_CANDIDATES);
    const withPassword = candidates.filter((c) => c.password_hash);
    const matches: typeof candidates = [];
    if (withPassword.length === 0) await this.passwords.verify(null, input.password);
    for (const c of withPassword) if (await this.passwords.verify(c.password_hash, input.password)) matches.push(c);
    if (matches.length === 0) {
      await this.countFailure(client, email);
      throw new InvalidCredentialsError();
    }
    if (matches.length > 1) {
      const orgs = await this.em.find(Organisation, { id: { $in: matches.map((m) => m.organisation_id) } });
      throw new ConflictError('This e-mail address signs in to several organisations: choose one (organisationId).', {
        organisations: orgs.map((o) => ({ id: o.id, name: o.name })),
      });
    }
    return this.em.transactional(async (em) => {
      const user = await em.findOneOrFail(User, { id: matches[0]!.id });
      return this.start(em, user, client);
    });
  }

  /** A new session for `user`; the member's sessions that ended are cleared on the way. */
  private async start(em: EntityManager, user: User, client: ClientInfo): Promise<SignedIn> {
    const token = newToken();
    const now = new Date();
    await em
      .getRepository<Session, SessionRepository>(Session)
      .deleteEndedOf(user.id, this.settings.idleTimeoutMs / 1000);
    const session = em.create(Session, {
      id: newId('session'),
      organisationId: user.organisationId,
      userId: user.id,
      tokenHash: sha256(token),
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + this.settings.maxAgeMs),
      userAgent: client.userAgent?.slice(0, 255) ?? null,
      address: client.address?.slice(0, 255) ?? null,
    });
    await em.flush();
    const organisation = await em.findOneOrFail(Organisation, { id: user.organisationId });
    return { session, token, user, organisation };
  }

  /**
   * The session a cookie's token names, if it is still good (neither idle past the timeout nor past
   * its absolute end, its member still a member), marked as seen now: one statement a request.
   */
  async authenticate(token: string): Promise<SessionOwner | null> {
    const row = await this.em
      .getRepository<Session, SessionRepository>(Session)
      .touch(sha256(token), this.settings.idleTimeoutMs / 1000);
    if (!row) return null;
    return {
      sessionId: row.id,
      userId: row.user_id,
      organisationId: row.organisation_id,
      memberRole: row.member_role,
      plan: row.plan,
      customLimits: row.custom_limits,
      expiresAt: new Date(row.expires_at),
    };
  }

  /** The signed-in member, their organisation and their session, for the console. */
  async describe(sessionId: string) {
    const session = await this.em.findOne(Session, { id: sessionId });
    if (!session) throw new NotFoundError('session', sessionId);
    const [user, organisation] = await Promise.all([
      this.em.findOneOrFail(User, { id: session.userId }),
      this.em.findOneOrFail(Organisation, { id: session.organisationId }),
    ]);
    return { session, user, organisation };
  }

  /** Ends one session: its cookie opens nothing from the next request on. */
  async signOut(sessionId: string): Promise<void> {
    await this.em.nativeDelete(Session, { id: sessionId });
  }

  /** Ends every session of the member, this one included; the number ended. */
  async signOutEverywhere(userId: string): Promise<number> {
    return this.em.nativeDelete(Session, { userId });
  }

  /** The member's sessions still good, newest first. */
  async listForUser(userId: string): Promise<Session[]> {
    const idleSince = new Date(Date.now() - this.settings.idleTimeoutMs);
    return this.em.find(
      Session,
      { userId, expiresAt: { $gt: new Date() }, lastSeenAt: { $gt: idleSince } },
      { orderBy: { id: 'desc' } },
    );
  }

  /** The organisation's first owner (the operator's CLI signs them in first), or the member with this e-mail. */
  async memberForLink(organisationId: string, email?: string): Promise<User> {
    const user = await this.em.findOne(
      User,
      email ? { organisationId, email: email.trim().toLowerCase() } : { organisationId, role: 'owner' },
      { orderBy: { id: 'asc' } },
    );
    if (!user) throw new NotFoundError(email ? `member ${email}` : 'owner (add one with member:add --role owner)');
    return user;
  }

  /**
   * A one-time link for a member to set a password and sign in (the first owner's, from the CLI; an
   * owner's reset of someone's password). Earlier unused links of the member stop working.
   */
  async createSignInLink(
    organisationId: string,
    userId: string,
  ): Promise<{ token: string; link: MemberLink; user: User }> {
    const user = await this.members.get(organisationId, userId);
    return { ...(await this.createLink(organisationId, 'sign_in', { userId: user.id })), user };
  }

  /** The link of a pending invitation, where the invited person names themselves and sets a password. */
  async createInvitationLink(
    organisationId: string,
    invitationId: string,
  ): Promise<{ token: string; link: MemberLink; invitation: Invitation }> {
    const invitation = await this.em.findOne(Invitation, { id: invitationId, organisationId, status: 'pending' });
    if (!invitation) throw new NotFoundError('pending invitation', invitationId);
    return { ...(await this.createLink(organisationId, 'invitation', { invitationId })), invitation };
  }

  /** An invitation and its link at once (POST /members/invite); the route hands the link over (handOver). */
  async inviteWithLink(organisationId: string, input: InviteInput) {
    const invitation = await this.members.invite(organisationId, input);
    const { token, link } = await this.createLink(organisationId, 'invitation', { invitationId: invitation.id });
    return { invitation, token, link };
  }

  private async createLink(
    organisationId: string,
    kind: MemberLinkKind,
    owner: { userId?: string; invitationId?: string },
  ): Promise<{ token: string; link: MemberLink }> {
    return this.em.transactional(async (em) => {
      await em.nativeUpdate(
        MemberLink,
        { organisationId, kind, ...owner, usedAt: null },
        { usedAt: new Date(), updatedAt: new Date() },
      );
      const token = newToken();
      const link = em.create(MemberLink, {
        id: newId('memberLink'),
        organisationId,
        kind,
        userId: owner.userId ?? null,
        invitationId: owner.invitationId ?? null,
        tokenHash: sha256(token),
        expiresAt: new Date(Date.now() + LINK_TTL_MS[kind]),
        usedAt: null,
      });
      await em.flush();
      return { token, link };
    });
  }

  /** A good link, or InvalidLinkError (counted as a failed authentication of the address). */
  private async openLink(em: EntityManager, token: string, client: ClientInfo, lock = false): Promise<MemberLink> {
    const link = await em.findOne(
      MemberLink,
      { tokenHash: sha256(token), usedAt: null, expiresAt: { $gt: new Date() } },
      lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
    );
    if (!link) {
      await this.countFailure(client);
      throw new InvalidLinkError();
    }
    return link;
  }

  /** What the set-password page shows before anything is changed: whose link it is, for which organisation. */
  async inspectLink(token: string, client: ClientInfo) {
    await this.assertAddressBudget(client);
    const link = await this.openLink(this.em, token, client);
    const organisation = await this.em.findOneOrFail(Organisation, { id: link.organisationId });
    const email = link.userId
      ? (await this.em.findOne(User, { id: link.userId }))?.email
      : (await this.em.findOne(Invitation, { id: link.invitationId! }))?.email;
    if (!email) throw new InvalidLinkError();
    return { kind: link.kind, email, organisation, expiresAt: link.expiresAt };
  }

  /**
   * Sets the password a link allows and signs in. A sign-in link sets the member's password and ends
   * their other sessions (whoever held the old password is out); an invitation link makes the member
   * (`name` required) with the password. The link is used up in the same commit.
   */
  async redeemLink(token: string, input: { password: string; name?: string }, client: ClientInfo): Promise<SignedIn> {
    await this.assertAddressBudget(client);
    const found = await this.openLink(this.em, token, client);
    if (found.kind === 'invitation' && !input.name)
      throw new ValidationError('Invalid body: name: An invitation link needs your name.', [
        { field: 'name', message: 'An invitation link needs your name.' },
      ]);
    // Hashed before the transaction: argon2 takes tens of milliseconds, too long to hold the row locks.
    const passwordHash = await hashPassword(input.password);
    return this.em.transactional(async (em) => {
      const link = await this.openLink(em, token, client, true);
      let user: User;
      if (link.kind === 'invitation') {
        user = await this.members.acceptIn(em, link.organisationId, link.invitationId!, input.name!);
      } else {
        const found = await em.findOne(User, { id: link.userId!, organisationId: link.organisationId });
        if (!found) throw new InvalidLinkError();
        user = found;
        await em.nativeDelete(Session, { userId: user.id });
      }
      user.passwordHash = passwordHash;
      link.usedAt = new Date();
      await em.flush();
      return this.start(em, user, client);
    });
  }

  /**
   * A member changes their own password: the current one first (a session left open on a shared
   * computer is not enough to take the account over), throttled as a sign-in is (the address's
   * failed-authentication budget and the account's failed sign-ins a minute, both counted on a wrong
   * current password). The member's other sessions end (whoever knew the old password is out); this
   * one goes on. A wrong current password is 422 on its field, not 401: the session is good, and a 401
   * would tell the console the session had ended.
   */
  async changePassword(
    session: { id: string; userId: string },
    input: { currentPassword: string; newPassword: string },
    client: ClientInfo,
  ): Promise<{ otherSessionsEnded: number }> {
    await this.assertAddressBudget(client);
    const user = await this.em.findOneOrFail(User, { id: session.userId });
    const account = await this.limiter.check(`signin:${user.email}`, this.settings.signInFailuresPerMinute);
    if (!account.allowed) throw new RateLimitedError(account, 'failed sign-ins a minute for this account');
    if (!(await this.passwords.verify(user.passwordHash, input.currentPassword))) {
      await this.countFailure(client, user.email);
      throw new ValidationError('Invalid body: currentPassword: This is not your current password.', [
        { field: 'currentPassword', message: 'This is not your current password.' },
      ]);
    }
    if (input.newPassword === input.currentPassword)
      throw new ValidationError('Invalid body: newPassword: Choose a password other than the current one.', [
        { field: 'newPassword', message: 'Choose a password other than the current one.' },
      ]);
    const passwordHash = await hashPassword(input.newPassword);
    return this.em.transactional(async (em) => {
      await em.nativeUpdate(User, { id: user.id }, { passwordHash, updatedAt: new Date() });
      const ended = await em.nativeDelete(Session, { userId: user.id, id: { $ne: session.id } });
      return { otherSessionsEnded: ended };
    });
  }

  /**
   * Hands a link to its person: with SMTP_URL, mailed to `to` and kept out of the answer (only its
   * reader should hold it); without, or when the mail server refuses it, handed back to whoever asked,
   * to pass on (an invitation is never lost to a mail server that is down).
   */
  async handOver(
    kind: MemberLinkKind,
    organisationId: string,
    to: string,
    url: string,
    expiresAt: Date,
  ): Promise<HandedOver> {
    if (!this.mail) return { link: url, mailedTo: null, mailError: null };
    const organisation = await this.em.findOneOrFail(Organisation, { id: organisationId });
    const until = expiresAt.toISOString().replace('T', ' ').slice(0, 16);
    const message =
      kind === 'invitation'
        ? {
            subject: `You are invited to ${organisation.name} on the Shelf console`,
            text: `You are invited to join ${organisation.name} on the Shelf console.\n\nOpen this link to choose your name and a password; it works once, until ${until} UTC:\n\n${url}\n\nIf you did not expect this invitation, ignore this mail.\n`,
          }
        : {
            subject: `Set your password for ${organisation.name} on the Shelf console`,
            text: `Open this link to set your password for ${organisation.name} on the Shelf console; it works once, until ${until} UTC, and signs you out of your other sessions:\n\n${url}\n\nIf you did not ask for it, ignore this mail; your password stays as it is.\n`,
          };
    try {
      await this.mail.mailer.send({ to, ...message });
      return { link: null, mailedTo: to, mailError: null };
    } catch (err) {
      // The server's own words may name internal hosts: logged for the operator, a plain sentence for the caller.
      this.mail.logger.warn({ err, kind, organisationId }, 'console link not mailed');
      return {
        link: url,
        mailedTo: null,
        mailError: `The mail server did not take the mail to ${to}; pass the link on yourself.`,
      };
    }
  }

  /** Sessions that have ended, deleted (the worker's housekeeping); the number deleted. */
  async purgeEnded(): Promise<number> {
    return this.em.getRepository<Session, SessionRepository>(Session).purgeEnded(this.settings.idleTimeoutMs / 1000);
  }
}
