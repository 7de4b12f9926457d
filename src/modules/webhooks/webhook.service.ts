import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { TenantRepository } from '../../db/tenant-repository.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import type { EventService } from '../events/event.service.js';
import { Delivery, DeliveryAttempt, type DeliveryStatus } from './delivery.entity.js';
import type { DeliveryService } from './delivery.service.js';
import { generateWebhookSecret } from './signature.js';
import { Webhook } from './webhook.entity.js';
import type { CreateWebhookInput, UpdateWebhookInput } from './webhook.schemas.js';

const ROTATION_GRACE_MS = 24 * 3600 * 1000;

export class WebhookService {
  private readonly repo: TenantRepository<Webhook>;
  private readonly deliveryRepo: TenantRepository<Delivery>;

  constructor(
    private readonly em: EntityManager,
    private readonly events: EventService,
    private readonly deliveries: DeliveryService,
    private readonly allowInsecureUrls: boolean,
  ) {
    this.repo = new TenantRepository(em, Webhook);
    this.deliveryRepo = new TenantRepository(em, Delivery);
  }

  /** HTTPS only, except where the operator allows private addresses (local development, tests). */
  private checkUrl(url: string | undefined) {
    if (url && !url.startsWith('https://') && !this.allowInsecureUrls) {
      throw new ValidationError('Invalid body: url: Must be an absolute HTTPS URL.', [
        { field: 'url', message: 'Must be an absolute HTTPS URL.' },
      ]);
    }
  }

  async create(organisationId: string, input: CreateWebhookInput): Promise<Webhook> {
    this.checkUrl(input.url);
    const webhook = this.em.create(Webhook, {
      id: newId('webhook'),
      organisationId,
      url: input.url,
      events: [...new Set(input.events)],
      description: input.description ?? null,
      secret: generateWebhookSecret(),
    });
    await this.em.flush();
    return webhook;
  }

  list(organisationId: string, page: Page) {
    return this.repo.page(organisationId, {}, page);
  }

  async get(organisationId: string, id: string): Promise<Webhook> {
    const webhook = await this.repo.findInOrg(organisationId, id);
    if (!webhook) throw new NotFoundError('webhook', id);
    return webhook;
  }

  async update(organisationId: string, id: string, input: UpdateWebhookInput): Promise<Webhook> {
    const webhook = await this.get(organisationId, id);
    this.checkUrl(input.url);
    if (input.url !== undefined) webhook.url = input.url;
    if (input.events !== undefined) webhook.events = [...new Set(input.events)];
    if (input.description !== undefined) webhook.description = input.description;
    if (input.status !== undefined && input.status !== webhook.status) {
      webhook.status = input.status;
      webhook.disabledReason = input.status === 'disabled' ? 'disabled by a user' : null;
      if (input.status === 'active') webhook.failingSince = null;
    }
    await this.em.flush();
    return webhook;
  }

  async delete(organisationId: string, id: string): Promise<void> {
    const webhook = await this.get(organisationId, id);
    await this.em.remove(webhook).flush();
  }

  /** New secret now; the old one keeps signing alongside for 24 hours so receivers can switch over. */
  async rotateSecret(organisationId: string, id: string) {
    const webhook = await this.get(organisationId, id);
    webhook.previousSecret = webhook.secret;
    webhook.previousSecretExpiresAt = new Date(Date.now() + ROTATION_GRACE_MS);
    webhook.secret = generateWebhookSecret();
    await this.em.flush();
    return webhook;
  }

  /** The `webhook.test` event for this endpoint, committed (WebhookCommands delivers it). */
  async recordTest(organisationId: string, id: string): Promise<{ eventId: string; webhookId: string }> {
    const webhook = await this.get(organisationId, id);
    // Deliveries only go to active endpoints; a test that could never be sent is refused up front.
    if (webhook.status !== 'active') {
      throw new ConflictError('This webhook endpoint is disabled; enable it before sending a test.', {
        webhookId: id,
        status: webhook.status,
      });
    }
    const eventId = await this.em.transactional(async (em) => {
      const event = await this.events.record(em, {
        organisationId,
        type: 'webhook.test',
        dedupeKey: `webhook.test:${newId('event')}`,
        data: { webhookId: webhook.id, message: 'This is a test delivery.' },
      });
      await this.events.markDispatched(em, event.id);
      return event.id;
    });
    return { eventId, webhookId: webhook.id };
  }

  async listDeliveries(
    organisationId: string,
    webhookId: string,
    filters: { status?: DeliveryStatus; event?: string },
    page: Page,
  ) {
    await this.get(organisationId, webhookId);
    const where: FilterQuery<Delivery> = { webhookId };
    if (filters.status) where.status = filters.status;
    if (filters.event) where.eventType = filters.event;
    const result = await this.deliveryRepo.page(organisationId, where, page);
    const attempts = await this.em.find(
      DeliveryAttempt,
      { deliveryId: { $in: result.items.map((d) => d.id) } },
      { orderBy: { attempt: 'asc' } },
    );
    return { ...result, attempts };
  }

  /** A finished delivery set back to pending, committed (WebhookCommands starts its new run). */
  async reopenDelivery(organisationId: string, webhookId: string, deliveryId: string): Promise<Delivery> {
    await this.get(organisationId, webhookId);
    const delivery = await this.deliveryRepo.findOne({ id: deliveryId, organisationId, webhookId });
    if (!delivery) throw new NotFoundError('delivery', deliveryId);
    if (delivery.status === 'pending')
      throw new ConflictError('This delivery is still being attempted; wait for it to finish.', { deliveryId });
    delivery.status = 'pending';
    delivery.completedAt = null;
    await this.em.flush();
    return delivery;
  }

  attemptsOf(deliveryId: string) {
    return this.em.find(DeliveryAttempt, { deliveryId }, { orderBy: { attempt: 'asc' } });
  }
}
