import { EntityRepository } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import type { MemberRole } from '../members/member.entity.js';
import type { PlanTier } from '../organisations/organisation.entity.js';
import type { Session } from './session.entity.js';

export type AuthenticatedRow = {
  id: string;
  user_id: string;
  organisation_id: string;
  expires_at: Date | string;
  member_role: MemberRole;
  plan: PlanTier;
  custom_limits: { rateLimits?: Record<string, number>; maxBatchSize?: number } | null;
};

export class SessionRepository extends EntityRepository<Session> {
  /** Clears the member's sessions that ended (past their absolute end, or idle `idleSeconds`). */
  async deleteEndedOf(userId: string, idleSeconds: number): Promise<void> {
    await sql(
      this.getEntityManager(),
      `delete from sessions where user_id = ? and (expires_at <= now() or last_seen_at <= now() - make_interval(secs => ?))`,
      [userId, idleSeconds],
    );
  }

  /** The session of `tokenHash` if still good, marked as seen now, with its member's role and plan: one statement. */
  async touch(tokenHash: string, idleSeconds: number): Promise<AuthenticatedRow | undefined> {
    const [row] = await sql<AuthenticatedRow>(
      this.getEntityManager(),
      `with s as (
         update sessions set last_seen_at = now()
          where token_hash = ? and expires_at > now() and last_seen_at > now() - make_interval(secs => ?)
         returning id, user_id, organisation_id, expires_at
       )
       select s.id, s.user_id, s.organisation_id, s.expires_at, u.role as member_role, o.plan, o.custom_limits
         from s
         join users u on u.id = s.user_id and u.organisation_id = s.organisation_id
         join organisations o on o.id = s.organisation_id`,
      [tokenHash, idleSeconds],
    );
    return row;
  }

  /** Deletes every session that ended; how many. */
  async purgeEnded(idleSeconds: number): Promise<number> {
    const rows = await sql<{ n: number }>(
      this.getEntityManager(),
      `with d as (delete from sessions where expires_at <= now() or last_seen_at <= now() - make_interval(secs => ?) returning 1)
       select count(*)::int as n from d`,
      [idleSeconds],
    );
    return rows[0]?.n ?? 0;
  }
}
