import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { SessionRepository } from './session.repository.js';

const p = defineEntity.properties;

/**
 * A member signed in to the console (ses_): server-side, so signing out, "sign out everywhere", a
 * removed member or a changed role take effect on the very next request. The browser holds only the
 * token, in an HttpOnly cookie; the database holds its SHA-256 (the token carries 256 random bits).
 */
export const Session = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  repository: () => SessionRepository,
  properties: {
    ...tenantProperties,
    userId: p.string(),
    tokenHash: p.string().unique(),
    /** Idle expiry counts from here: bumped by each request (at most once a minute). */
    lastSeenAt: p.datetime(),
    /** Absolute expiry: the session ends then however active it is. */
    expiresAt: p.datetime(),
    /** What the member's "signed in" list shows: the browser and address it was made from. */
    userAgent: p.string().nullable(),
    address: p.string().nullable(),
  },
  indexes: [
    { properties: ['userId'], name: 'sessions_user_id_index' },
    { properties: ['expiresAt'], name: 'sessions_expires_at_index' },
  ],
});
export type Session = InferEntity<typeof Session>;

export const MEMBER_LINK_KINDS = ['sign_in', 'invitation'] as const;
export type MemberLinkKind = (typeof MEMBER_LINK_KINDS)[number];

/**
 * A one-time link (mbl_) to the console's set-password page: `sign_in` for an existing member (the
 * first owner's, from the CLI; a reset an owner asks for), `invitation` for a pending invitation (the
 * invited person names themselves and chooses a password). Only the token's SHA-256 is kept; the
 * token itself travels in the link's fragment, which browsers never send to a server or in a Referer.
 */
export const MemberLink = defineEntity({
  name: 'MemberLink',
  tableName: 'member_links',
  properties: {
    ...tenantProperties,
    kind: p.enum([...MEMBER_LINK_KINDS]),
    userId: p.string().nullable(),
    invitationId: p.string().nullable(),
    tokenHash: p.string().unique(),
    expiresAt: p.datetime(),
    /** Set when the link is redeemed or replaced by a newer one: it then opens nothing. */
    usedAt: p.datetime().nullable(),
  },
  indexes: [
    { properties: ['userId'], name: 'member_links_user_id_index' },
    { properties: ['invitationId'], name: 'member_links_invitation_id_index' },
  ],
});
export type MemberLink = InferEntity<typeof MemberLink>;
