import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import { ApiKey, type ApiKeyRole } from './api-key.entity.js';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-secret.js';
import { type ApiKeyRepository } from './api-key.repository.js';
import { Organisation } from '../organisations/organisation.entity.js';
import type { OrganisationRepository } from '../organisations/organisation.repository.js';

export type CreatedApiKey = { key: ApiKey; secret: string };

/** Working (not revoked, not expired) keys an organisation may hold at once. */
export const MAX_ACTIVE_KEYS = 100;

export class ApiKeyService {
  private readonly repo: ApiKeyRepository;

  constructor(private readonly em: EntityManager) {
    this.repo = em.getRepository<ApiKey, ApiKeyRepository>(ApiKey);
  }

  /**
   * A new key, unless the organisation already has MAX_ACTIVE_KEYS working keys (409). The count
   * and the insert run under the organisation's row lock, so concurrent creations cannot pass the cap.
   */
  async create(organisationId: string, role: ApiKeyRole, name?: string | null): Promise<CreatedApiKey> {
    return this.em.transactional(async (em) => {
      await this.assertBelowCap(em, organisationId);
      return this.insert(em, organisationId, role, name);
    });
  }

  private async assertBelowCap(em: EntityManager, organisationId: string) {
    await em.getRepository<Organisation, OrganisationRepository>(Organisation).lock(organisationId);
    if ((await em.getRepository<ApiKey, ApiKeyRepository>(ApiKey).activeCount(organisationId)) >= MAX_ACTIVE_KEYS) {
      throw new ConflictError(`This organisation already has ${MAX_ACTIVE_KEYS} active API keys; revoke one first.`, {
        limit: MAX_ACTIVE_KEYS,
      });
    }
  }

  private async insert(
    em: EntityManager,
    organisationId: string,
    role: ApiKeyRole,
    name?: string | null,
  ): Promise<CreatedApiKey> {
    const secret = generateApiKey();
    const key = em.create(ApiKey, {
      id: newId('apiKey'),
      organisationId,
      role,
      name: name ?? null,
      keyHash: hashApiKey(secret),
      keyPrefix: displayPrefix(secret),
    });
    await em.flush();
    return { key, secret };
  }

  /** Every key of the organisation, newest first (the admin CLI's listing). */
  all(organisationId: string): Promise<ApiKey[]> {
    return this.repo.find({ organisationId }, { orderBy: { id: 'desc' } });
  }

  /** Newest first, keyset-paginated like every other list. */
  list(organisationId: string, page: Page) {
    return this.repo.page(organisationId, {}, page);
  }

  /**
   * A new key with the same role and name; the old one stops now or after the grace period. Only a
   * working key can be rotated (a revoked or expired one is 409: rotating must never bring a key
   * back), and a grace period only ever shortens: rotating an expiring key again keeps the earlier end.
   */
  async rotate(organisationId: string, id: string, graceSeconds: number): Promise<CreatedApiKey> {
    return this.em.transactional(async (em) => {
      const old = await em.findOne(ApiKey, { id, organisationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!old) throw new NotFoundError('API key', id);
      const now = new Date();
      if (old.revokedAt || (old.expiresAt && old.expiresAt <= now)) {
        throw new ConflictError('This API key is revoked or expired and cannot be rotated; create a new key instead.', {
          keyId: id,
        });
      }
      if (graceSeconds === 0) old.revokedAt = now;
      else {
        const end = new Date(now.getTime() + graceSeconds * 1000);
        if (!old.expiresAt || end < old.expiresAt) old.expiresAt = end;
        // The old key stays usable for a while, so the new one counts against the cap.
        await this.assertBelowCap(em, organisationId);
      }
      return this.insert(em, organisationId, old.role, old.name);
    });
  }

  async revoke(organisationId: string, id: string): Promise<ApiKey> {
    const key = await this.repo.findOne({ id, organisationId });
    if (!key) throw new NotFoundError('API key', id);
    key.revokedAt ??= new Date();
    await this.em.flush();
    return key;
  }
}
