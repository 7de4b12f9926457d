import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { UserRepository } from './member.repository.js';
import { TenantRepository } from '../../db/tenant-repository.js';

const p = defineEntity.properties;

export const MEMBER_ROLES = ['owner', 'member', 'tasker'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** A person in the organisation (usr_): field workers are assigned tasks by this id. */
export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  repository: () => UserRepository,
  properties: {
    ...tenantProperties,
    name: p.string(),
    /** Stored lowercased: one member per e-mail per organisation. */
    email: p.string(),
    phone: p.string().nullable(),
    role: p.enum([...MEMBER_ROLES]),
    reportsTo: p.string().nullable(),
    /**
     * argon2id hash (PHC string) of the member's console password; null until they set one through a
     * sign-in or invitation link (src/modules/sessions). Never returned, exported or logged.
     */
    passwordHash: p.string().nullable(),
  },
  indexes: [
    { properties: ['organisationId', 'id'], name: 'users_org_id_index' },
    // Sign-in looks a member up by e-mail in every organisation (one person may belong to several).
    { properties: ['email'], name: 'users_email_index' },
  ],
  uniques: [{ properties: ['organisationId', 'email'], name: 'users_org_email_unique' }],
});
export type User = InferEntity<typeof User>;

export const Invitation = defineEntity({
  name: 'Invitation',
  tableName: 'invitations',
  repository: () => TenantRepository,
  properties: {
    ...tenantProperties,
    email: p.string(),
    phone: p.string().nullable(),
    role: p.enum(['member', 'tasker']),
    reportsTo: p.string().nullable(),
    status: p.enum(['pending', 'accepted', 'revoked']),
    userId: p.string().nullable(),
  },
  indexes: [{ properties: ['organisationId', 'email'], name: 'invitations_org_email_index' }],
});
export type Invitation = InferEntity<typeof Invitation>;
