import { LockMode } from '@mikro-orm/core';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { containsPattern } from '../../db/like.js';
import { type TenantRepository } from '../../db/tenant-repository.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import { Invitation, User, type MemberRole } from './member.entity.js';
import type { InviteInput, UpdateMemberInput } from './member.schemas.js';
import type { UserRepository } from './member.repository.js';
import { Organisation } from '../organisations/organisation.entity.js';
import type { OrganisationRepository } from '../organisations/organisation.repository.js';

const reportsToError = (message: string) =>
  new ValidationError(`Invalid body: reportsTo: ${message}`, [{ field: 'reportsTo', message }]);

export class MemberService {
  readonly repo: UserRepository;

  constructor(private readonly em: EntityManager) {
    this.repo = em.getRepository<User, UserRepository>(User);
  }

  /** The memberships a sign-in with `email` tries (SessionService.signIn). */
  signInCandidates(email: string, organisationId: string | null, limit: number) {
    return this.repo.signInCandidates(email, organisationId, limit);
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
    if (userId && !(await this.repo.findInOrg(organisationId, userId)))
      throw reportsToError(`No member with id '${userId}'.`);
  }

  /** The invitation alone; its link (mailed with SMTP_URL, or handed back) is SessionService's. */
  async invite(organisationId: string, input: InviteInput): Promise<Invitation> {
    const email = input.email.toLowerCase();
    await this.assertMember(organisationId, input.reportsTo);
    if (await this.repo.findOne({ organisationId, email }))
      throw new ConflictError(`${email} is already a member.`, { field: 'email' });
    if (await this.em.findOne(Invitation, { organisationId, email, status: 'pending' }))
      throw new ConflictError(`${email} already has a pending invitation.`, { field: 'email' });
    const invitation = this.em.create(Invitation, {
      id: newId('invitation'),
      organisationId,
      email,
      phone: input.phone ?? null,
      role: input.role,
      reportsTo: input.reportsTo ?? null,
      status: 'pending',
    });
    await this.em.flush();
    return invitation;
  }

  /** Pending invitations, newest first, a page at a time. */
  listInvitations(organisationId: string, page: Page) {
    return this.em
      .getRepository<Invitation, TenantRepository<Invitation>>(Invitation)
      .page(organisationId, { status: 'pending' }, page);
  }

  pendingInvitations(organisationId: string) {
    return this.em.find(Invitation, { organisationId, status: 'pending' }, { orderBy: { id: 'asc' } });
  }

  async accept(organisationId: string, invitationId: string, name: string): Promise<User> {
    return this.em.transactional((em) => this.acceptIn(em, organisationId, invitationId, name));
  }

  /**
   * Turns a pending invitation into a member inside the caller's transaction (an invitation link
   * sets the password in the same commit). Refused if the e-mail became a member meanwhile.
   */
  async acceptIn(em: EntityManager, organisationId: string, invitationId: string, name: string): Promise<User> {
    const invitation = await em.findOne(
      Invitation,
      { id: invitationId, organisationId, status: 'pending' },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!invitation) throw new NotFoundError('pending invitation', invitationId);
    if (await em.findOne(User, { organisationId, email: invitation.email }))
      throw new ConflictError(`${invitation.email} is already a member.`, { field: 'email' });
    const user = em.create(User, {
      id: newId('user'),
      organisationId,
      name,
      email: invitation.email,
      phone: invitation.phone,
      role: invitation.role,
      reportsTo: invitation.reportsTo,
    });
    invitation.status = 'accepted';
    invitation.userId = user.id;
    await em.flush();
    return user;
  }

  async add(organisationId: string, input: { name: string; email: string; role: MemberRole }): Promise<User> {
    const user = this.em.create(User, {
      id: newId('user'),
      organisationId,
      name: input.name,
      email: input.email.toLowerCase(),
      role: input.role,
      phone: null,
      reportsTo: null,
    });
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
    return this.underOwnerLock(organisationId, async (em) => {
      const current = await em.findOneOrFail(User, { id: user.id, organisationId });
      if (input.role && input.role !== 'owner' && current.role === 'owner')
        await this.assertAnotherOwner(em, organisationId, userId);
      if (input.role) current.role = input.role;
      if (input.name) current.name = input.name;
      if (input.reportsTo !== undefined) current.reportsTo = input.reportsTo;
      await em.flush();
      return current;
    });
  }

  async remove(organisationId: string, userId: string): Promise<void> {
    await this.get(organisationId, userId);
    await this.underOwnerLock(organisationId, async (em) => {
      const user = await em.findOneOrFail(User, { id: userId, organisationId });
      if (user.role === 'owner') await this.assertAnotherOwner(em, organisationId, userId);
      await em.nativeUpdate(User, { organisationId, reportsTo: userId }, { reportsTo: null });
      await em.remove(user).flush();
    });
  }

  /**
   * Changes that could remove an owner run one at a time per organisation (its row lock): two owners
   * demoting each other at once must leave one of them an owner, and a count read outside the lock
   * could let both pass.
   */
  private underOwnerLock<T>(organisationId: string, work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.em.fork().transactional(async (em) => {
      await em.getRepository<Organisation, OrganisationRepository>(Organisation).lock(organisationId);
      return work(em);
    });
  }

  private async assertAnotherOwner(em: EntityManager, organisationId: string, userId: string) {
    const owners = await em.count(User, { organisationId, role: 'owner', id: { $ne: userId } });
    if (owners === 0) throw new ConflictError('The last owner cannot be removed or demoted.', { userId });
  }
}
