import { TenantRepository } from '../../db/tenant-repository.js';
import { sql } from '../../db/sql.js';
import type { ApiKey } from './api-key.entity.js';
import type { ApiKeyRole } from './api-key.entity.js';
import type { PlanTier } from '../organisations/organisation.entity.js';

export type KeyOwner = {
  apiKeyId: string;
  organisationId: string;
  role: ApiKeyRole;
  plan: PlanTier;
  customLimits: { rateLimits?: Record<string, number>; maxBatchSize?: number } | null;
};

export class ApiKeyRepository extends TenantRepository<ApiKey> {
  /**
   * One indexed read per request, deliberately uncached: a revoked key must fail on the very
   * next request on every API process.
   */
  async findActiveOwner(keyHash: string): Promise<KeyOwner | null> {
    const rows = await sql<{
      api_key_id: string;
      organisation_id: string;
      role: ApiKeyRole;
      plan: PlanTier;
      custom_limits: KeyOwner['customLimits'];
    }>(
      this.getEntityManager(),
      `select k.id as api_key_id, k.organisation_id, k.role, o.plan, o.custom_limits
         from api_keys k join organisations o on o.id = k.organisation_id
        where k.key_hash = ? and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())`,
      [keyHash],
    );
    const row = rows[0];
    return row
      ? {
          apiKeyId: row.api_key_id,
          organisationId: row.organisation_id,
          role: row.role,
          plan: row.plan,
          customLimits: row.custom_limits,
        }
      : null;
  }

  /** Throttled so a busy key costs one write a minute, not one per request. */
  async touchLastUsed(apiKeyId: string): Promise<void> {
    await sql(
      this.getEntityManager(),
      `update api_keys set last_used_at = now()
          where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
      [apiKeyId],
    );
  }
}
