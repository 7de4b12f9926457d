import { TenantRepository } from '../../db/tenant-repository.js';
import type { Task } from './task.entity.js';

export class TaskRepository extends TenantRepository<Task> {}
