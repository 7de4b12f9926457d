import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../lib/errors.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import { ApiKey, type ApiKeyRole } from './api-key.entity.js';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-secret.js';
import { ApiKeyRepository } from './api-key.repository.js';

export type CreatedApiKey = { key: ApiKey; secret: string };

export class ApiKeyService {
  private readonly repo: ApiKeyRepository;

  constructor(private readonly em: EntityManager) {
    this.repo = new ApiKeyRepository(em, ApiKey);
  }

  async create(organisationId: string, role: ApiKeyRole, name?: string | null): Promise<CreatedApiKey> {
    const secret = generateApiKey();
    const key = this.em.create(ApiKey, {
      id: newId('apiKey'),
      organisationId,
      role,
      name: name ?? null,
      keyHash: hashApiKey(secret),
      keyPrefix: displayPrefix(secret),
    });
    await this.em.flush();
    return { key, secret };
  }

  /** Every key of the organisation, newest first (the admin CLI's listing). */
  all(organisationId: string): Promise<ApiKey[]> {
    return this.repo.find({ organisationId }, { orderBy: { id: 'desc' } });
  }

  /** Newest first, keyset-paginated like every other list. */
  list(organisationId: string, page: Page) {
    return new TenantRepository(this.em, ApiKey).page(organisationId, {}, page);
  }

  /** A new key with the same role and name; the old one stops now or after the grace period. */
  async rotate(organisationId: string, id: string, graceSeconds: number): Promise<CreatedApiKey> {
    const old = await this.repo.findOne({ id, organisationId, revokedAt: null });
    if (!old) throw new NotFoundError('API key', id);
    if (graceSeconds === 0) old.revokedAt = new Date();
    else old.expiresAt = new Date(Date.now() + graceSeconds * 1000);
    return this.create(organisationId, old.role, old.name);
  }

  async revoke(organisationId: string, id: string): Promise<ApiKey> {
    const key = await this.repo.findOne({ id, organisationId });
    if (!key) throw new NotFoundError('API key', id);
    key.revokedAt ??= new Date();
    await this.em.flush();
    return key;
  }
}
