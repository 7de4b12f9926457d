import { TenantRepository } from '../../db/tenant-repository.js';
import type { Alert } from './alert.entity.js';

export class AlertRepository extends TenantRepository<Alert> {}
