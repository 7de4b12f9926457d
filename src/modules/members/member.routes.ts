import { z } from 'zod';
import { dataEnvelope, defineRoute, deletedSchema, listEnvelope } from '../../http/route.js';
import {
  invitationSchema,
  inviteBody,
  listMembersQuery,
  memberSchema,
  serializeMember,
  updateMemberBody,
} from './member.schemas.js';
import type { MemberService } from './member.service.js';

const params = z.object({ userId: z.string().min(1).max(100).meta({ example: 'usr_01jdq3x4v6m8c9a1b2c3d4e5f6' }) });
const tag = 'Members';

export function memberRoutes(members: MemberService) {
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
      summary: 'Invite someone to the organisation',
      description:
        'No e-mail is sent unless SMTP is configured (it is not, yet); accept with `npm run cli -- invite:accept`.',
      tag,
      role: 'admin',
      body: inviteBody,
      status: 201,
      response: dataEnvelope(invitationSchema),
      errors: ['CONFLICT'],
      handler: async ({ auth, body }) => {
        const i = await members.invite(auth.organisationId, body);
        return {
          status: 201,
          body: { data: { invitationId: i.id, email: i.email, role: i.role, createdAt: i.createdAt.toISOString() } },
        };
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
