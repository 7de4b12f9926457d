import { TenantRepository } from '../../db/tenant-repository.js';
import type { Order } from './order.entity.js';

export class OrderRepository extends TenantRepository<Order> {}
