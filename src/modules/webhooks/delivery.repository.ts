import { TenantRepository } from '../../db/tenant-repository.js';
import type { Delivery } from './delivery.entity.js';

export class DeliveryRepository extends TenantRepository<Delivery> {}
