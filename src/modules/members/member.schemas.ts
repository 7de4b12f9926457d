import { z } from 'zod';
import { linkHandOver } from '../sessions/session.schemas.js';
import { cursorParam, limitParam } from '../../lib/pagination.js';
import { singleLine } from '../../lib/validation.js';
import { MEMBER_ROLES, type User } from './member.entity.js';

export const listMembersQuery = z.strictObject({
  role: z.enum(MEMBER_ROLES).optional(),
  search: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Case-insensitive match on name or e-mail.' }),
  cursor: cursorParam,
  limit: limitParam(),
});

export const inviteBody = z
  .strictObject({
    email: z.email().max(255).meta({ example: 'sam@retailer.example' }),
    phone: singleLine(z.string().max(50)).optional(),
    reportsTo: z.string().max(100).optional().meta({ description: 'User id (usr_) of a member.' }),
    role: z.enum(['member', 'tasker']).default('member'),
  })
  .meta({ id: 'InviteMemberRequest' });
export type InviteInput = z.infer<typeof inviteBody>;

export const updateMemberBody = z
  .strictObject({
    role: z.enum(MEMBER_ROLES).optional(),
    name: singleLine(z.string().trim().min(1).max(200)).optional(),
    reportsTo: z.string().max(100).nullable().optional(),
  })
  .meta({ id: 'UpdateMemberRequest' });
export type UpdateMemberInput = z.infer<typeof updateMemberBody>;

export const memberSchema = z
  .object({
    userId: z.string().meta({ example: 'usr_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    role: z.enum(MEMBER_ROLES),
    createdAt: z.iso.datetime(),
    name: z.string(),
    email: z.string(),
    reportsTo: z.string().nullable(),
  })
  .meta({ id: 'Member' });
export const invitationSchema = z
  .object({
    invitationId: z.string().meta({ example: 'mbi_01jdq3x4v6m8c9a1b2c3d4e5f6' }),
    email: z.string(),
    role: z.enum(['member', 'tasker']),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Invitation' });
export const createdInvitationSchema = invitationSchema
  .extend({ ...linkHandOver, linkExpiresAt: z.iso.datetime() })
  .meta({ id: 'CreatedInvitation' });
export const listInvitationsQuery = z.strictObject({ cursor: cursorParam, limit: limitParam() });

export function serializeMember(u: User): z.infer<typeof memberSchema> {
  return {
    userId: u.id,
    role: u.role,
    createdAt: u.createdAt.toISOString(),
    name: u.name,
    email: u.email,
    reportsTo: u.reportsTo ?? null,
  };
}
