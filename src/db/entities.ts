import { Analysis } from '../modules/analyses/analysis.entity.js';
import { AnalysisRun } from '../modules/analyses/analysis-run.entity.js';
import { Batch } from '../modules/analyses/batch.entity.js';
import { ImageBlob } from '../modules/analyses/image-blob.entity.js';
import { AnalysisImage } from '../modules/analyses/analysis-image.entity.js';
import { Event } from '../modules/events/event.entity.js';
import { Product } from '../modules/products/product.entity.js';
import { Alert } from '../modules/alerts/alert.entity.js';
import { Delivery, DeliveryAttempt } from '../modules/webhooks/delivery.entity.js';
import { Webhook } from '../modules/webhooks/webhook.entity.js';
import { IdempotencyKey } from '../modules/idempotency/idempotency-key.entity.js';
import { RateLimitWindow } from '../modules/rate-limits/rate-limit.entity.js';
import { Task } from '../modules/tasks/task.entity.js';
import { Account } from '../modules/accounts/account.entity.js';
import { Order, OrderCounter, OrderLine } from '../modules/orders/order.entity.js';
import { Invitation, User } from '../modules/members/member.entity.js';
import { ApiKey } from '../modules/api-keys/api-key.entity.js';
import { CreditEntry } from '../modules/credits/credit-entry.entity.js';
import { InventoryItem } from '../modules/inventory/inventory-item.entity.js';
import { Organisation } from '../modules/organisations/organisation.entity.js';
import { Place } from '../modules/places/place.entity.js';
import { Project } from '../modules/projects/project.entity.js';
import { MemberLink, Session } from '../modules/sessions/session.entity.js';

/** Every entity the ORM knows. New modules add theirs here. */
export const entities = [
  Organisation,
  ApiKey,
  CreditEntry,
  Project,
  Place,
  InventoryItem,
  Analysis,
  Batch,
  AnalysisRun,
  ImageBlob,
  AnalysisImage,
  Product,
  Event,
  Webhook,
  Delivery,
  DeliveryAttempt,
  Alert,
  RateLimitWindow,
  IdempotencyKey,
  Task,
  Account,
  Order,
  OrderLine,
  OrderCounter,
  User,
  Invitation,
  Session,
  MemberLink,
];
