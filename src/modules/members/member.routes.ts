import { z } from 'zod';
import { dataEnvelope, defineRoute, deletedSchema, listEnvelope } from '../../http/route.js';
import type { SessionService } from '../sessions/session.service.js';
import { handOverMemberLink } from '../sessions/session.routes.js';
import { memberLinkSchema } from '../sessions/session.schemas.js';
import {
  createdInvitationSchema,
  invitationSchema,
  inviteBody,
  listInvitationsQuery,
  listMembersQuery,
  memberSchema,
  serializeMember,
  updateMemberBody,
} from './member.schemas.js';
import type { MemberService } from './member.service.js';

const params = z.object({ userId: z.string().min(1).max(100).meta({ example: 'usr_01jdq3x4v6m8c9a1b2c3d4e5f6' }) });
const invitationParams = z.object({
  invitationId: z.string().min(1).max(100).meta({ example: 'mbi_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
});
const tag = 'Members';

export function memberRoutes(members: MemberService, sessions: SessionService) {
  return [
    defineRoute({
      method: 'get',
      path: '/members',
      operationId: 'listMembers',
      summary: 'List organisation members',
      tag,
      query: listMembersQuery,
      status: 200,
      response: listEnvelope(memberSchema),
      handler: async ({ auth, query }) => {
        const { cursor, limit, ...filters } = query;
        const page = await members.list(auth.organisationId, filters, { cursor, limit });
        return { body: { data: page.items.map(serializeMember), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/members/invite',
      operationId: 'inviteMember',
      summary: 'Invite someone to the organisation (the answer carries their link)',
      description:
        'With SMTP_URL set, the link where the invited person chooses a password and joins (the console at /console/set-password) is mailed to them and left out of the answer (`mailedTo`); without it, or when the mail server refuses the mail (`mailError`), the answer carries the link: pass it on privately. It works once, for 7 days. A new link: POST /members/invitations/{invitationId}/link. The admin CLI can still accept an invitation (`invite:accept`).',
      tag,
      role: 'admin',
      body: inviteBody,
      status: 201,
      response: dataEnvelope(createdInvitationSchema),
      errors: ['CONFLICT'],
      handler: async ({ auth, body, ctx }) => {
        const { invitation: i, token, link } = await sessions.inviteWithLink(auth.organisationId, body);
        const { expiresAt, ...handedOver } = await handOverMemberLink(ctx, sessions, {
          kind: 'invitation',
          organisationId: auth.organisationId,
          to: i.email,
          token,
          expiresAt: link.expiresAt,
        });
        return {
          status: 201,
          body: {
            data: {
              invitationId: i.id,
              email: i.email,
              role: i.role,
              createdAt: i.createdAt.toISOString(),
              ...handedOver,
              linkExpiresAt: expiresAt,
            },
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/members/invitations',
      operationId: 'listInvitations',
      summary: 'List pending invitations',
      tag,
      query: listInvitationsQuery,
      status: 200,
      response: listEnvelope(invitationSchema),
      handler: async ({ auth, query }) => {
        const page = await members.listInvitations(auth.organisationId, query);
        return {
          body: {
            data: page.items.map((i) => ({
              invitationId: i.id,
              email: i.email,
              role: i.role,
              createdAt: i.createdAt.toISOString(),
            })),
            pagination: page.pagination,
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/members/invitations/{invitationId}/link',
      operationId: 'createInvitationLink',
      summary: 'A new link for a pending invitation (the earlier one stops working)',
      tag,
      role: 'admin',
      params: invitationParams,
      status: 200,
      response: dataEnvelope(memberLinkSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params, ctx }) => {
        const { token, link, invitation } = await sessions.createInvitationLink(
          auth.organisationId,
          params.invitationId,
        );
        const data = await handOverMemberLink(ctx, sessions, {
          kind: 'invitation',
          organisationId: auth.organisationId,
          to: invitation.email,
          token,
          expiresAt: link.expiresAt,
        });
        return { body: { data } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/members/{userId}/sign-in-link',
      operationId: 'createSignInLink',
      summary:
        "A one-time link where a member sets a new password (a reset; the member's sessions end when it is used)",
      description:
        "For a member who forgot their password, or never set one. Works once, for 24 hours; the member's earlier links stop working. Mailed to the member with SMTP_URL set; otherwise in the answer, to pass on privately.",
      tag,
      role: 'admin',
      params,
      status: 200,
      response: dataEnvelope(memberLinkSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params, ctx }) => {
        const { token, link, user } = await sessions.createSignInLink(auth.organisationId, params.userId);
        const data = await handOverMemberLink(ctx, sessions, {
          kind: 'sign_in',
          organisationId: auth.organisationId,
          to: user.email,
          token,
          expiresAt: link.expiresAt,
        });
        return { body: { data } };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/members/{userId}',
      operationId: 'updateMember',
      summary: 'Change a member: role, name, reportsTo (no cycles)',
      tag,
      role: 'admin',
      params,
      body: updateMemberBody,
      status: 200,
      response: dataEnvelope(memberSchema),
      errors: ['NOT_FOUND', 'CONFLICT'],
      handler: async ({ auth, params, body }) => ({
        body: { data: serializeMember(await members.update(auth.organisationId, params.userId, body)) },
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/members/{userId}',
      operationId: 'removeMember',
      summary: 'Remove a member (never the last owner)',
      tag,
      params,
      status: 200,
      response: dataEnvelope(deletedSchema),
      errors: ['NOT_FOUND', 'CONFLICT'],
      handler: async ({ auth, params }) => {
        await members.remove(auth.organisationId, params.userId);
        return { body: { data: { id: params.userId, deleted: true } } };
      },
    }),
  ];
}
