// The CLI's commands for API keys, members and invitations (main.ts runs them).
import type { Config } from '../../config.js';
import { API_KEY_ROLES, type ApiKeyRole } from '../../modules/api-keys/api-key.entity.js';
import type { MemberLinkKind } from '../../modules/sessions/session.entity.js';
import { memberLinkUrl } from '../../modules/sessions/session.service.js';
import type { Services } from '../../services.js';
import { UsageError } from '../args.js';
import type { CliCommand } from '../command.js';

/**
 * With SMTP_URL the link is mailed to its person as well; the operator still gets it printed (they
 * hold the database and its keys anyway, and a first owner must not be stranded by a mail that
 * never arrives).
 */
async function mailed(
  config: Config,
  services: Services,
  link: { kind: MemberLinkKind; org: string; to: string; url: string; expiresAt: Date },
): Promise<{ mailedTo?: string | null; mailError?: string | null }> {
  if (!config.SMTP_URL) return {};
  const { mailedTo, mailError } = await services.sessions.handOver(
    link.kind,
    link.org,
    link.to,
    link.url,
    link.expiresAt,
  );
  return { mailedTo, mailError };
}

const mailLines = (m: { mailedTo?: string | null; mailError?: string | null }) =>
  m.mailedTo ? [`mailed to ${m.mailedTo}`] : m.mailError ? [`not mailed: ${m.mailError}`] : [];

export const accessCommands: Record<string, CliCommand> = {
  'key:create': {
    usage: `  key:create     --org <org_id> --role ${API_KEY_ROLES.join('|')} [--name <label>]`,
    async run({ args, services }) {
      const org = await services.organisations.get(args.need('org'));
      if (!org) throw new UsageError(`no organisation ${args.values.org}`);
      const role = args.oneOf<ApiKeyRole>('role', API_KEY_ROLES);
      const name = args.values.name === undefined ? undefined : args.oneLine('name', args.values.name);
      const { key, secret } = await services.apiKeys.create(org.id, role, name);
      args.print({ id: key.id, role: key.role, name: key.name, key: secret }, [
        `${key.id} (${key.role})`,
        secret,
        'Store this key now: it is shown only once.',
      ]);
    },
  },
  'key:list': {
    usage: `  key:list       --org <org_id>`,
    async run({ args, services }) {
      const keys = await services.apiKeys.all(args.need('org'));
      const rows = keys.map((k) => ({
        id: k.id,
        name: k.name,
        role: k.role,
        prefix: k.keyPrefix,
        lastUsedAt: k.lastUsedAt,
        revokedAt: k.revokedAt,
        createdAt: k.createdAt,
      }));
      args.print(
        rows,
        rows.length
          ? rows.map(
              (r) =>
                `${r.id}  ${r.role.padEnd(6)} ${r.prefix}…  ${r.revokedAt ? 'revoked' : 'active '}  ${r.name ?? ''}`,
            )
          : '(none)',
      );
    },
  },
  'key:revoke': {
    usage: `  key:revoke     --org <org_id> --key <key_id>`,
    async run({ args, services }) {
      const key = await services.apiKeys.revoke(args.need('org'), args.need('key'));
      args.print({ id: key.id, revokedAt: key.revokedAt }, `${key.id} revoked`);
    },
  },
  'member:add': {
    usage: `  member:add     --org <org_id> --email <e-mail> --name <name> [--role owner|member|tasker]`,
    async run({ args, services }) {
      const user = await services.members.add(args.need('org'), {
        name: args.label('name'),
        email: args.label('email'),
        role: args.oneOf('role', ['owner', 'member', 'tasker'] as const, 'member'),
      });
      args.print({ userId: user.id, email: user.email, role: user.role }, `${user.id} ${user.email} (${user.role})`);
    },
  },
  'member:login-link': {
    usage: `  member:login-link --org <org_id> [--email <e-mail>]\n                 a one-time link to the console where the member (default: the first owner) sets a\n                 password and is signed in; earlier links of theirs stop working (with SMTP_URL\n                 also mailed to the member)`,
    async run({ args, services, config, consoleOrigin }) {
      const org = args.need('org');
      const email = args.values.email === undefined ? undefined : args.label('email');
      const user = await services.sessions.memberForLink(org, email);
      const { token, link } = await services.sessions.createSignInLink(org, user.id);
      const url = memberLinkUrl(consoleOrigin(), token);
      const mail = await mailed(config, services, {
        kind: 'sign_in',
        org,
        to: user.email,
        url,
        expiresAt: link.expiresAt,
      });
      args.print({ userId: user.id, email: user.email, link: url, expiresAt: link.expiresAt.toISOString(), ...mail }, [
        `sign-in link for ${user.email} (${user.role}), good once until ${link.expiresAt.toISOString()}:`,
        url,
        ...mailLines(mail),
      ]);
    },
  },
  'invite:list': {
    usage: `  invite:list    --org <org_id>`,
    async run({ args, services }) {
      const rows = (await services.members.pendingInvitations(args.need('org'))).map((i) => ({
        invitationId: i.id,
        email: i.email,
        role: i.role,
        createdAt: i.createdAt,
      }));
      args.print(rows, rows.length ? rows.map((r) => `${r.invitationId}  ${r.role.padEnd(7)} ${r.email}`) : '(none)');
    },
  },
  'invite:link': {
    usage: `  invite:link    --org <org_id> --invitation <mbi_id>\n                 a new link for a pending invitation, where the invited person sets a password and joins\n                 (with SMTP_URL also mailed to them)`,
    async run({ args, services, config, consoleOrigin }) {
      const { token, link, invitation } = await services.sessions.createInvitationLink(
        args.need('org'),
        args.need('invitation'),
      );
      const url = memberLinkUrl(consoleOrigin(), token);
      const mail = await mailed(config, services, {
        kind: 'invitation',
        org: invitation.organisationId,
        to: invitation.email,
        url,
        expiresAt: link.expiresAt,
      });
      args.print(
        {
          invitationId: invitation.id,
          email: invitation.email,
          link: url,
          expiresAt: link.expiresAt.toISOString(),
          ...mail,
        },
        [
          `invitation link for ${invitation.email}, good once until ${link.expiresAt.toISOString()}:`,
          url,
          ...mailLines(mail),
        ],
      );
    },
  },
  'invite:accept': {
    usage: `  invite:accept  --org <org_id> --invitation <mbi_id> --name <name>`,
    async run({ args, services }) {
      const user = await services.members.accept(args.need('org'), args.need('invitation'), args.label('name'));
      args.print(
        { userId: user.id, email: user.email, role: user.role },
        `${user.email} joined as ${user.id} (${user.role})`,
      );
    },
  },
};
