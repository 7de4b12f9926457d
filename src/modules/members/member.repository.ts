import { TenantRepository } from '../../db/tenant-repository.js';
import type { User } from './member.entity.js';

export class UserRepository extends TenantRepository<User> {}
