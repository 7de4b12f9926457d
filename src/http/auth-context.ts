import type { ApiKeyRole } from '../modules/api-keys/api-key.entity.js';
import type { PlanTier } from '../modules/organisations/organisation.entity.js';

/** Who is calling: resolved from the API key on every request, never cached across requests. */
export type AuthContext = {
  organisationId: string;
  apiKeyId: string;
  role: ApiKeyRole;
  plan: PlanTier;
  customLimits: { rateLimits?: Record<string, number>; maxBatchSize?: number } | null;
};

const RANK: Record<ApiKeyRole, number> = { read: 0, write: 1, admin: 2 };

export function roleAllows(actual: ApiKeyRole, required: ApiKeyRole): boolean {
  return RANK[actual] >= RANK[required];
}
