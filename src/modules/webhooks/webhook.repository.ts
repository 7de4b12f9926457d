import { TenantRepository } from '../../db/tenant-repository.js';
import type { Webhook } from './webhook.entity.js';

export class WebhookRepository extends TenantRepository<Webhook> {}
