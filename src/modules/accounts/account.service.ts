import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import { Account } from './account.entity.js';
import { type AccountRepository, type AccountFilters } from './account.repository.js';
import type { CreateAccountInput, UpdateAccountInput } from './account.schemas.js';

export class AccountService {
  private readonly repo: AccountRepository;

  constructor(private readonly em: EntityManager) {
    this.repo = em.getRepository<Account, AccountRepository>(Account);
  }

  async create(organisationId: string, input: CreateAccountInput): Promise<Account> {
    const account = this.em.create(Account, {
      ...input,
      status: input.status ?? 'active',
      id: newId('account'),
      organisationId,
    });
    await this.em.flush();
    return account;
  }

  list(organisationId: string, filters: AccountFilters, page: Page) {
    return this.repo.list(organisationId, filters, page);
  }

  async get(organisationId: string, id: string): Promise<Account> {
    const account = await this.repo.findInOrg(organisationId, id);
    if (!account) throw new NotFoundError('account', id);
    return account;
  }

  async update(organisationId: string, id: string, input: UpdateAccountInput): Promise<Account> {
    const account = await this.get(organisationId, id);
    this.em.assign(account, input);
    await this.em.flush();
    return account;
  }

  async delete(organisationId: string, id: string): Promise<void> {
    await this.em.remove(await this.get(organisationId, id)).flush();
  }
}
