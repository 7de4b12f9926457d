import { sql } from '../../db/sql.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { User } from './member.entity.js';

export class UserRepository extends TenantRepository<User> {
  /** The memberships of `email` (in `organisationId` only, if given) a sign-in tries, at most `limit`. */
  signInCandidates(
    email: string,
    organisationId: string | null,
    limit: number,
  ): Promise<{ id: string; organisation_id: string; password_hash: string | null }[]> {
    return sql<{ id: string; organisation_id: string; password_hash: string | null }>(
      this.getEntityManager(),
      `select u.id, u.organisation_id, u.password_hash from users u
        where u.email = ? and (?::text is null or u.organisation_id = ?) order by u.id limit ?`,
      [email, organisationId, organisationId, limit],
    );
  }
}
