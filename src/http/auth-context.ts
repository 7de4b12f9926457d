import type { ApiKeyRole } from '../modules/api-keys/api-key.entity.js';
import type { MemberRole } from '../modules/members/member.entity.js';
import type { PlanTier } from '../modules/organisations/organisation.entity.js';

/**
 * Who is calling: an API key, or a member signed in to the console (a session, in place of a key);
 * resolved on every request, never cached across requests.
 */
export type AuthContext = {
  organisationId: string;
  /**
   * Who acts: the API key (`key_…`) or the signed-in member (`usr_…`). Rate-limit windows, stored
   * idempotent answers, and who completed a task or actioned an alert are theirs.
   */
  actorId: string;
  /** The key's role, or the one the member's role maps to (consoleRole). */
  role: ApiKeyRole;
  plan: PlanTier;
  customLimits: { rateLimits?: Record<string, number>; maxBatchSize?: number } | null;
  /** Set when the caller is a console session. */
  session: { id: string; userId: string; memberRole: MemberRole } | null;
};

const RANK: Record<ApiKeyRole, number> = { read: 0, write: 1, admin: 2 };

export function roleAllows(actual: ApiKeyRole, required: ApiKeyRole): boolean {
  return RANK[actual] >= RANK[required];
}

/**
 * What a member may do in the console, as an API key role (docs/decisions.md, Console): an owner
 * administers (keys, webhooks, members), a member writes, a tasker works on tasks and nothing else
 * (routes that admit taskers say so: RouteDefinition.taskers).
 */
export function consoleRole(memberRole: MemberRole): ApiKeyRole {
  return memberRole === 'owner' ? 'admin' : 'write';
}
