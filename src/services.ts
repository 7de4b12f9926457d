import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { taskQueues } from './temporal/contracts/task-queues.js';
import { config as globalConfig, type Config } from './config.js';
import { createLogger, type Logger } from './lib/logger.js';
import { secretBox } from './lib/secrets/index.js';
import { AccountService } from './modules/accounts/account.service.js';
import { OrderService } from './modules/orders/order.service.js';
import { ReportService } from './modules/reports/report.service.js';
import { MemberService } from './modules/members/member.service.js';
import { AlertCommands } from './modules/alerts/alert-commands.js';
import { AlertService } from './modules/alerts/alert.service.js';
import { AnalysisProcessingService } from './modules/analyses/analysis-processing.service.js';
import { AnalysisStarter } from './modules/analyses/analysis-starter.js';
import { AnalysisService } from './modules/analyses/analysis.service.js';
import { ApiKeyService } from './modules/api-keys/api-key.service.js';
import { KeyGate } from './modules/api-keys/key-gate.js';
import { CreditService } from './modules/credits/credit.service.js';
import { EventService } from './modules/events/event.service.js';
import { InventoryService } from './modules/inventory/inventory.service.js';
import { OrganisationService } from './modules/organisations/organisation.service.js';
import { PlaceService } from './modules/places/place.service.js';
import { ProductService } from './modules/products/product.service.js';
import { ProjectService } from './modules/projects/project.service.js';
import { IdempotencyService } from './modules/idempotency/idempotency.service.js';
import { RateLimiter } from './modules/rate-limits/rate-limiter.js';
import { redisWindows } from './modules/rate-limits/redis-windows.js';
import { UsageService } from './modules/usage/usage.service.js';
import { TaskCommands } from './modules/tasks/task-commands.js';
import { TaskService } from './modules/tasks/task.service.js';
import { DeliveryService } from './modules/webhooks/delivery.service.js';
import { EventDispatcher } from './modules/webhooks/event-dispatcher.js';
import { WebhookService } from './modules/webhooks/webhook.service.js';

export type ServiceContext = { config?: Config; temporal?: Client; logger?: Logger };

/**
 * The typed service graph. With the global entity manager each call resolves to the
 * request's forked manager (RequestContext); activities and scripts pass `orm.em.fork()`.
 */
export function createServices(em: EntityManager, context: ServiceContext = {}) {
  const config = context.config ?? globalConfig();
  const logger = context.logger ?? createLogger(config.LOG_LEVEL, 'services');
  const credits = new CreditService(em);
  const events = new EventService();
  const projects = new ProjectService(em);
  const places = new PlaceService(em, projects);
  const alerts = new AlertService(em);
  const redisUrl = config.REDIS_URL;
  const rateLimiter = new RateLimiter(em, redisUrl ? () => redisWindows(redisUrl) : undefined);
  const deliveries = new DeliveryService(em, alerts, logger);
  const temporal = () => {
    if (!context.temporal) throw new Error('this process has no Temporal client');
    return context.temporal;
  };
  const queues = taskQueues(config.TASK_QUEUE_PREFIX);
  let starter: AnalysisStarter | undefined;
  const analysisStarter = () => (starter ??= new AnalysisStarter(em, temporal(), queues, logger, config.RECOGNITION_HEARTBEAT_TIMEOUT_MS));
  const tasks = new TaskService(em, projects, events, alerts, { lowComplianceGrade: config.LOW_COMPLIANCE_GRADE, priceMismatchShare: config.PRICE_MISMATCH_SHARE });
  let dispatcher: EventDispatcher | undefined;
  const eventDispatcher = () => (dispatcher ??= new EventDispatcher(em, deliveries, events, temporal(), queues, config.WEBHOOK_RETRY_SCHEDULE_MS));
  return {
    em,
    apiKeys: new ApiKeyService(em),
    keyGate: new KeyGate(em, rateLimiter),
    credits,
    events,
    organisations: new OrganisationService(em, credits),
    projects,
    places,
    inventory: new InventoryService(em, projects),
    analyses: new AnalysisService(em, credits, places, analysisStarter, config.ANALYSIS_RUNS, alerts, config.CREDITS_LOW_THRESHOLD),
    analysisStarter,
    analysisProcessing: new AnalysisProcessingService(em, credits, events, alerts),
    products: new ProductService(em),
    alerts,
    deliveries,
    eventDispatcher,
    rateLimiter,
    tasks,
    accounts: new AccountService(em),
    orders: new OrderService(em),
    reports: new ReportService(em),
    members: new MemberService(em),
    alertCommands: () => new AlertCommands(alerts, temporal(), queues),
    taskCommands: () => new TaskCommands(tasks, temporal(), queues, eventDispatcher, config.TASK_OVERDUE_AFTER_MS, logger),
    idempotency: new IdempotencyService(em, secretBox),
    usage: new UsageService(em, credits, rateLimiter),
    webhooks: new WebhookService(em, events, deliveries, eventDispatcher, config.ALLOW_PRIVATE_NETWORK_FETCH),
  };
}

export type Services = ReturnType<typeof createServices>;
