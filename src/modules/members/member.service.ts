import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { containsPattern } from '../../db/like.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import { Invitation, User, type MemberRole } from './member.entity.js';
import type { InviteInput, UpdateMemberInput } from './member.schemas.js';

const reportsToError = (message: string) => new ValidationError(`Invalid body: reportsTo: ${message}`, [{ field: 'reportsTo', message }]);

export class MemberService {
  readonly repo: TenantRepository<User>;

  constructor(private readonly em: EntityManager) {
    this.repo = new TenantRepository(em, User);
  }

  list(organisationId: string, filters: { role?: MemberRole; search?: string }, page: Page) {
    const where: FilterQuery<User> = {};
    if (filters.role) where.role = filters.role;
    if (filters.search) {
      const pattern = containsPattern(filters.search);
      where.$or = [{ name: { $ilike: pattern } }, { email: { $ilike: pattern } }];
    }
    return this.repo.page(organisationId, where, page);
  }

  async get(organisationId: string, userId: string): Promise<User> {
    const user = await this.repo.findInOrg(organisationId, userId);
    if (!user) throw new NotFoundError('member', userId);
    return user;
  }

  private async assertMember(organisationId: string, userId: string | null | undefined) {
    if (userId && !(await this.repo.findInOrg(organisationId, userId))) throw reportsToError(`No member with id '${userId}'.`);
  }

  /** No e-mail is sent (no SMTP here); the invitation is accepted through the admin CLI. */
  async invite(organisationId: string, input: InviteInput): Promise<Invitation> {
    const email = input.email.toLowerCase();
    await this.assertMember(organisationId, input.reportsTo);
    if (await this.repo.findOne({ organisationId, email })) throw new ConflictError(`${email} is already a member.`, { field: 'email' });
    if (await this.em.findOne(Invitation, { organisationId, email, status: 'pending' })) throw new ConflictError(`${email} already has a pending invitation.`, { field: 'email' });
    const invitation = this.em.create(Invitation, { id: newId('invitation'), organisationId, email, phone: input.phone ?? null, role: input.role, reportsTo: input.reportsTo ?? null, status: 'pending' });
    await this.em.flush();
    return invitation;
  }

  pendingInvitations(organisationId: string) {
    return this.em.find(Invitation, { organisationId, status: 'pending' }, { orderBy: { id: 'asc' } });
  }

  async accept(organisationId: string, invitationId: string, name: string): Promise<User> {
    return this.em.transactional(async (em) => {
      const invitation = await em.findOne(Invitation, { id: invitationId, organisationId, status: 'pending' });
      if (!invitation) throw new NotFoundError('pending invitation', invitationId);
      const user = em.create(User, { id: newId('user'), organisationId, name, email: invitation.email, phone: invitation.phone, role: invitation.role, reportsTo: invitation.reportsTo });
      invitation.status = 'accepted';
      invitation.userId = user.id;
      await em.flush();
      return user;
    });
  }

  async add(organisationId: string, input: { name: string; email: string; role: MemberRole }): Promise<User> {
    const user = this.em.create(User, { id: newId('user'), organisationId, name: input.name, email: input.email.toLowerCase(), role: input.role, phone: null, reportsTo: null });
    await this.em.flush();
    return user;
  }

  async update(organisationId: string, userId: string, input: UpdateMemberInput): Promise<User> {
    const user = await this.get(organisationId, userId);
    if (input.reportsTo) {
      await this.assertMember(organisationId, input.reportsTo);
      // Walk up the chain from the new manager: meeting this member again would be a cycle.
      let cursor: string | null = input.reportsTo;
      for (let depth = 0; cursor && depth < 1000; depth++) {
        if (cursor === userId) throw reportsToError('That would make a reporting cycle.');
        cursor = (await this.repo.findInOrg(organisationId, cursor))?.reportsTo ?? null;
      }
    }
    if (input.role && input.role !== 'owner' && user.role === 'owner') await this.assertAnotherOwner(organisationId, userId);
    if (input.role) user.role = input.role;
    if (input.name) user.name = input.name;
    if (input.reportsTo !== undefined) user.reportsTo = input.reportsTo;
    await this.em.flush();
    return user;
  }

  async remove(organisationId: string, userId: string): Promise<void> {
    const user = await this.get(organisationId, userId);
    if (user.role === 'owner') await this.assertAnotherOwner(organisationId, userId);
    await this.em.nativeUpdate(User, { organisationId, reportsTo: userId }, { reportsTo: null });
    await this.em.remove(user).flush();
  }

  private async assertAnotherOwner(organisationId: string, userId: string) {
    const owners = await this.repo.count({ organisationId, role: 'owner', id: { $ne: userId } });
    if (owners === 0) throw new ConflictError('The last owner cannot be removed or demoted.', { userId });
  }
}
