import { IsolationLevel, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Page } from '../../lib/pagination.js';
import type { EventService } from '../events/event.service.js';
import { Delivery, DeliveryAttempt, type DeliveryStatus } from './delivery.entity.js';
import type { DeliveryService } from './delivery.service.js';
import { generateWebhookSecret } from './signature.js';
import { Webhook } from './webhook.entity.js';
import type { CreateWebhookInput, UpdateWebhookInput } from './webhook.schemas.js';
import type { WebhookRepository } from './webhook.repository.js';
import type { DeliveryRepository } from './delivery.repository.js';
import { Analysis } from '../analyses/analysis.entity.js';
import type { AnalysisRepository } from '../analyses/analysis.repository.js';

const ROTATION_GRACE_MS = 24 * 3600 * 1000;
/** The most deliveries listed for one analysis (GET /analyses/{id}/deliveries). */
export const MAX_ANALYSIS_DELIVERIES = 100;

/** A delivery an operator's bulk redelivery (CLI webhooks:redeliver-failed) may send again. */
export type RedeliveryCandidate = {
  deliveryId: string;
  eventType: string;
  /** Null for a per-request callback. */
  webhookId: string | null;
  analysisId: string | null;
  /** `failed`: its retries ran out or it was abandoned; `pending`: left without a workflow (see `redeliveryCandidates`). */
  status: 'failed' | 'pending';
  attempts: number;
  lastStatusCode: number | null;
  finishedAt: string | null;
  /** Set when it cannot be sent: its webhook was deleted or is disabled. */
  skipReason: string | null;
};

/** What WebhookService uses (src/services.ts builds it once per process). */
export type WebhookServiceDeps = {
  em: EntityManager;
  events: EventService;
  deliveries: DeliveryService;
  allowInsecureUrls: boolean;
};

/** A listing's reads in one snapshot: what it shows stood together at one moment. */
const SNAPSHOT = { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true };

/** The attempts of the deliveries `ids`, first attempt first (what a listed delivery shows). */
const attemptsOfAll = (em: EntityManager, ids: string[]) =>
  em.find(DeliveryAttempt, { deliveryId: { $in: ids } }, { orderBy: { attempt: 'asc' } });

export class WebhookService {
  private readonly repo: WebhookRepository;
  private readonly deliveryRepo: DeliveryRepository;
  private readonly em: EntityManager;
  private readonly events: EventService;
  private readonly deliveries: DeliveryService;
  /** ALLOW_PRIVATE_NETWORK_FETCH: http and private addresses allowed (development, tests). */
  private readonly allowInsecureUrls: boolean;

  constructor({ em, events, deliveries, allowInsecureUrls }: WebhookServiceDeps) {
    this.em = em;
    this.events = events;
    this.deliveries = deliveries;
    this.allowInsecureUrls = allowInsecureUrls;
    this.repo = em.getRepository<Webhook, WebhookRepository>(Webhook);
    this.deliveryRepo = em.getRepository<Delivery, DeliveryRepository>(Delivery);
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
    // One snapshot for the page and its attempts, as for an analysis' deliveries (D367).
    return this.em.transactional(async (em) => {
      const result = await em.getRepository<Delivery, DeliveryRepository>(Delivery).page(organisationId, where, page);
      const attempts = await attemptsOfAll(
        em,
        result.items.map((d) => d.id),
      );
      return { ...result, attempts };
    }, SNAPSHOT);
  }

  /**
   * Every delivery about one analysis, newest first, with their attempts: its events' deliveries to
   * webhooks (each retry of the analysis has events of its own) and to its callback URL. At most
   * `MAX_ANALYSIS_DELIVERIES` (an analysis has one per endpoint and event).
   */
  async deliveriesOfAnalysis(organisationId: string, analysisId: string) {
    if (!(await this.em.getRepository<Analysis, AnalysisRepository>(Analysis).existsInOrg(organisationId, analysisId)))
      throw new NotFoundError('analysis', analysisId);
    // The deliveries and their attempts read in one snapshot: read apart, a 2xx recorded between the
    // two reads showed a succeeded attempt under a pending delivery (D367).
    return this.em.transactional(async (em) => {
      const events = await this.events.idsOfAnalysis(em, organisationId, analysisId);
      const rows = await em.find(
        Delivery,
        { organisationId, $or: [{ analysisId }, { eventId: { $in: events } }] },
        { orderBy: { id: 'desc' }, limit: MAX_ANALYSIS_DELIVERIES + 1 },
      );
      const items = rows.slice(0, MAX_ANALYSIS_DELIVERIES);
      const attempts = await attemptsOfAll(
        em,
        items.map((d) => d.id),
      );
      return { items, attempts, hasMore: rows.length > items.length };
    }, SNAPSHOT);
  }

  /** A finished delivery set back to pending, committed (WebhookCommands starts its new run). */
  async reopenDelivery(organisationId: string, webhookId: string, deliveryId: string): Promise<Delivery> {
    await this.get(organisationId, webhookId);
    const delivery = await this.deliveryRepo.findOne({ id: deliveryId, organisationId, webhookId });
    if (!delivery) throw new NotFoundError('delivery', deliveryId);
    return this.reopen(delivery);
  }

  /**
   * One of an analysis' deliveries (a webhook's delivery of its event, or its callback's) set back to
   * pending for a new run. A callback has no webhook route to redeliver it from, so the analysis
   * names it. Refused (409) while it is being attempted, and when its webhook was deleted or disabled
   * (the attempt would be abandoned unsent).
   */
  async reopenAnalysisDelivery(organisationId: string, analysisId: string, deliveryId: string): Promise<Delivery> {
    const row = await this.deliveryRepo.ofAnalysis(organisationId, analysisId, deliveryId);
    if (!row) throw new NotFoundError('analysis', analysisId);
    const delivery = row.belongs ? await this.deliveryRepo.findOne({ id: deliveryId, organisationId }) : null;
    if (!delivery) throw new NotFoundError('delivery', deliveryId);
    if (delivery.webhookId && row.webhook_status !== 'active')
      throw new ConflictError(
        row.webhook_status
          ? 'Its webhook is disabled: set it back to active first.'
          : 'Its webhook was deleted: nowhere to send it.',
        { deliveryId, webhookId: delivery.webhookId },
      );
    return this.reopen(delivery);
  }

  private async reopen(delivery: Delivery): Promise<Delivery> {
    if (delivery.status === 'pending')
      throw new ConflictError('This delivery is still being attempted; wait for it to finish.', {
        deliveryId: delivery.id,
      });
    delivery.status = 'pending';
    delivery.completedAt = null;
    await this.em.flush();
    return delivery;
  }

  /**
   * What a bulk redelivery considers, oldest first: the organisation's failed deliveries (webhooks
   * and callbacks) that ended at or after `since`, and the pending ones not waiting for a timer
   * (`next_attempt_at` null) touched since then. The latter are either mid-attempt or were left
   * without a running workflow (a redelivery that died between reopening and starting, a workflow
   * that ended for an operator): the caller asks Temporal which.
   */
  async redeliveryCandidates(organisationId: string, since: Date): Promise<RedeliveryCandidate[]> {
    const rows = await this.deliveryRepo.redeliveryCandidates(organisationId, since);
    return rows.map((r) => ({
      deliveryId: r.id,
      eventType: r.event_type,
      webhookId: r.webhook_id,
      analysisId: r.analysis_id,
      status: r.status,
      attempts: r.attempt_count,
      lastStatusCode: r.last_status_code,
      finishedAt: r.completed_at ? new Date(r.completed_at).toISOString() : null,
      skipReason:
        r.webhook_id && !r.webhook_status
          ? 'its webhook was deleted'
          : r.webhook_status === 'disabled'
            ? 'its webhook is disabled (set it back to active first)'
            : null,
    }));
  }

  /** Back to pending for a new run, if still failed (false: someone else reopened it first). */
  async reopenFailed(organisationId: string, deliveryId: string): Promise<boolean> {
    return this.deliveryRepo.reopenFailed(organisationId, deliveryId);
  }

  attemptsOf(deliveryId: string) {
    return attemptsOfAll(this.em, [deliveryId]);
  }
}
