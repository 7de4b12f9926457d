import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantProperties } from '../../db/base-properties.js';
import { SealedString } from '../../db/sealed-string-type.js';
import { WebhookRepository } from './webhook.repository.js';

const p = defineEntity.properties;

export const WEBHOOK_STATUSES = ['active', 'disabled'] as const;

export const Webhook = defineEntity({
  name: 'Webhook',
  tableName: 'webhooks',
  repository: () => WebhookRepository,
  properties: {
    ...tenantProperties,
    url: p.text(),
    events: p.json<string[]>(),
    description: p.text().nullable(),
    status: p.enum([...WEBHOOK_STATUSES]).default('active'),
    disabledReason: p.string().nullable(),
    /**
     * Signing secrets are needed in clear to sign, so they are encrypted at rest (SECRETS_KEY), not
     * hashed; they are returned once (creation, rotation).
     */
    secret: p.type(SealedString).$type<string>(),
    /** After a rotation the old secret keeps signing, as a second v1 value, until this time. */
    previousSecret: p.type(SealedString).$type<string>().nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    /** Start of the current run of failed deliveries; cleared by any success (5-day disable rule). */
    failingSince: p.datetime().nullable(),
  },
  indexes: [{ properties: ['organisationId', 'id'], name: 'webhooks_org_id_index' }],
});
export type Webhook = InferEntity<typeof Webhook>;
