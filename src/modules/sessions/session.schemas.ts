import { z } from 'zod';
import { singleLine } from '../../lib/validation.js';
import { MEMBER_ROLES } from '../members/member.entity.js';
import { PLAN_TIERS } from '../organisations/organisation.entity.js';
import { PASSWORD_MAX, PASSWORD_MIN } from './password.js';
import { MEMBER_LINK_KINDS } from './session.entity.js';

const password = z
  .string()
  .min(PASSWORD_MIN, `At least ${PASSWORD_MIN} characters.`)
  .max(PASSWORD_MAX)
  .meta({ description: `The new password: ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.` });
const linkToken = z
  .string()
  .min(20)
  .max(100)
  .regex(/^[A-Za-z0-9_-]+$/, 'Not a link token.')
  .meta({ description: 'The token from the link (after `#token=`).' });

export const signInBody = z
  .strictObject({
    email: z.email().max(255).meta({ example: 'sam@retailer.example' }),
    // Any length is checked against the hash: only its upper bound is enforced here.
    password: z.string().min(1).max(PASSWORD_MAX),
    organisationId: z.string().max(100).optional().meta({
      description: 'Which organisation, when the e-mail address is a member of several (a 409 lists them).',
    }),
  })
  .meta({ id: 'SignInRequest' });

export const inspectLinkBody = z.strictObject({ token: linkToken }).meta({ id: 'InspectLinkRequest' });
export const redeemLinkBody = z
  .strictObject({
    token: linkToken,
    password,
    name: singleLine(z.string().trim().min(1).max(200))
      .optional()
      .meta({ description: 'Your name: required for an invitation link.' }),
  })
  .meta({ id: 'RedeemLinkRequest' });

export const consoleSessionSchema = z
  .object({
    member: z.object({
      userId: z.string(),
      name: z.string(),
      email: z.string(),
      role: z.enum(MEMBER_ROLES),
    }),
    organisation: z.object({ id: z.string(), name: z.string(), plan: z.enum(PLAN_TIERS) }),
    access: z.enum(['admin', 'write', 'tasks']).meta({
      description: 'What the console may do: owner admin (keys, webhooks, members), member write, tasker tasks only.',
    }),
    csrfToken: z.string().meta({
      description: 'Send it as `X-CSRF-Token` on every POST, PATCH and DELETE made with this session.',
    }),
    session: z.object({
      id: z.string(),
      createdAt: z.iso.datetime(),
      expiresAt: z.iso.datetime().meta({ description: 'When the session ends however active it is.' }),
      idleTimeoutSeconds: z.number().int().meta({ description: 'The session ends after this long unused.' }),
    }),
    temporalUi: z
      .object({ url: z.string(), namespace: z.string() })
      .nullable()
      .meta({ description: "The Temporal Web UI, for links to workflows (an analysis' workflow id is its id)." }),
  })
  .meta({ id: 'ConsoleSession' });

export const signedInSessionSchema = z
  .object({
    id: z.string(),
    createdAt: z.iso.datetime(),
    lastSeenAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
    userAgent: z.string().nullable(),
    address: z.string().nullable(),
    current: z.boolean().meta({ description: 'The session this request was made with.' }),
  })
  .meta({ id: 'SignedInSession' });

export const linkInfoSchema = z
  .object({
    kind: z.enum(MEMBER_LINK_KINDS),
    email: z.string(),
    organisation: z.object({ id: z.string(), name: z.string() }),
    expiresAt: z.iso.datetime(),
  })
  .meta({ id: 'MemberLinkInfo' });

/** How a link reached its person: mailed (SMTP_URL set), or handed back to pass on. */
export const linkHandOver = {
  link: z.string().nullable().meta({
    description:
      'Opens the console where its holder sets a password and is signed in. Works once; hand it over privately. Null when it was mailed (`mailedTo`): only its reader gets it.',
    example: 'https://shelf.example.com/console/set-password#token=…',
  }),
  mailedTo: z.string().nullable().meta({
    description:
      'With SMTP_URL set: the address the link was mailed to; null when it was not mailed (then `link` holds it).',
  }),
  mailError: z.string().nullable().meta({
    description: 'Why the mail was not sent although SMTP_URL is set (the link is then in `link`, to pass on).',
  }),
};

export const memberLinkSchema = z.object({ ...linkHandOver, expiresAt: z.iso.datetime() }).meta({ id: 'MemberLink' });

export const changePasswordBody = z
  .strictObject({
    // Any length is checked against the hash: only its upper bound is enforced here.
    currentPassword: z.string().min(1).max(PASSWORD_MAX),
    newPassword: password,
  })
  .meta({ id: 'ChangePasswordRequest' });

export const passwordChangedSchema = z
  .object({
    otherSessionsEnded: z.number().int().meta({
      description: "How many of the member's other sessions ended (this one goes on).",
    }),
  })
  .meta({ id: 'PasswordChanged' });

export const signedOutSchema = z
  .object({ sessionsEnded: z.number().int().meta({ description: 'How many sessions this ended.' }) })
  .meta({ id: 'SignedOut' });
