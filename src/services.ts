import type { EntityManager } from '@mikro-orm/postgresql';
import { config as globalConfig, type Config } from './config.js';
import { createLogger, type Logger } from './lib/logger.js';
import { secretBox } from './lib/secrets/index.js';
import { AccountService } from './modules/accounts/account.service.js';
import { OrderService } from './modules/orders/order.service.js';
import { ReportService } from './modules/reports/report.service.js';
import { MemberService } from './modules/members/member.service.js';
import { AlertService } from './modules/alerts/alert.service.js';
import { AnalysisProcessingService } from './modules/analyses/analysis-processing.service.js';
import { AnalysisService } from './modules/analyses/analysis.service.js';
import { ApiKeyService } from './modules/api-keys/api-key.service.js';
import { KeyGate } from './modules/api-keys/key-gate.js';
import { CreditService } from './modules/credits/credit.service.js';
import { EventService } from './modules/events/event.service.js';
import { InventoryService } from './modules/inventory/inventory.service.js';
import { OrganisationService } from './modules/organisations/organisation.service.js';
import { OrganisationExportService } from './modules/organisations/organisation-export.service.js';
import { PlanPeriodService } from './modules/organisations/plan-period.service.js';
import { PlaceService } from './modules/places/place.service.js';
import { ProductService } from './modules/products/product.service.js';
import { ProjectService } from './modules/projects/project.service.js';
import { IdempotencyService } from './modules/idempotency/idempotency.service.js';
import { RateLimiter } from './modules/rate-limits/rate-limiter.js';
import { createMailer } from './lib/outbound/mailer.js';
import { SessionGate } from './modules/sessions/session-gate.js';
import { SessionService } from './modules/sessions/session.service.js';
import { RedisWindows } from './modules/rate-limits/redis-windows.js';
import { UsageService } from './modules/usage/usage.service.js';
import { TaskService } from './modules/tasks/task.service.js';
import { DeliveryService } from './modules/webhooks/delivery.service.js';
import { WebhookService } from './modules/webhooks/webhook.service.js';

/**
 * `redisWindows`: the process's Redis rate-limit store (REDIS_URL), owned and closed by the caller
 * (src/runtime.ts), so every graph of a process shares one client. A graph given none while
 * REDIS_URL is set makes its own (a script's or a test's graph; it connects only if it takes).
 */
export type ServiceContext = { config?: Config; logger?: Logger; redisWindows?: RedisWindows };

/**
 * The domain services: the database and the rules, no Temporal (commands.ts builds what starts and
 * messages workflows on top). With the global entity manager each call resolves to the request's or
 * activity call's fork (RequestContext); scripts and tests may pass `orm.em.fork()`.
 */
export function createServices(em: EntityManager, context: ServiceContext = {}) {
  const config = context.config ?? globalConfig();
  const logger = context.logger ?? createLogger(config.LOG_LEVEL, 'services');
  const credits = new CreditService(em);
  const events = new EventService();
  const projects = new ProjectService(em);
  const places = new PlaceService(em, projects);
  const alerts = new AlertService(em);
  const planPeriods = new PlanPeriodService({ em, periodMs: config.PLAN_PERIOD_MS });
  const redis = context.redisWindows ?? (config.REDIS_URL ? new RedisWindows(config.REDIS_URL, logger) : undefined);
  const rateLimiter = new RateLimiter(em, redis ? () => redis : undefined);
  const deliveries = new DeliveryService(em, alerts, logger);
  const tasks = new TaskService({
    em,
    projects,
    events,
    alerts,
    policy: { lowComplianceGrade: config.LOW_COMPLIANCE_GRADE, priceMismatchShare: config.PRICE_MISMATCH_SHARE },
  });
  const members = new MemberService(em);
  const sessions = new SessionService({
    em,
    limiter: rateLimiter,
    members,
    settings: {
      idleTimeoutMs: config.SESSION_IDLE_TIMEOUT_MS,
      maxAgeMs: config.SESSION_MAX_AGE_MS,
      signInFailuresPerMinute: config.SIGN_IN_FAILURES_PER_MINUTE,
      authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
      publicUrl: config.PUBLIC_URL,
      temporalUi: config.TEMPORAL_UI_URL ? { url: config.TEMPORAL_UI_URL, namespace: config.TEMPORAL_NAMESPACE } : null,
    },
    mail: config.SMTP_URL ? { mailer: createMailer(config.SMTP_URL, config.SMTP_FROM), logger } : null,
  });
  return {
    em,
    apiKeys: new ApiKeyService(em),
    keyGate: new KeyGate(em, rateLimiter),
    credits,
    events,
    organisations: new OrganisationService(em, credits, planPeriods),
    planPeriods,
    organisationExport: new OrganisationExportService(em),
    projects,
    places,
    inventory: new InventoryService(em, projects),
    analyses: new AnalysisService({
      em,
      credits,
      places,
      alerts,
      totalRuns: config.ANALYSIS_RUNS,
      creditsLowThreshold: config.CREDITS_LOW_THRESHOLD,
    }),
    analysisProcessing: new AnalysisProcessingService({
      em,
      credits,
      events,
      alerts,
      writeWaitsForPassMs: config.PHOTO_WRITE_WAITS_FOR_PASS_MS,
    }),
    products: new ProductService(em),
    alerts,
    deliveries,
    rateLimiter,
    tasks,
    accounts: new AccountService(em),
    orders: new OrderService(em),
    reports: new ReportService(em),
    members,
    sessions,
    sessionGate: new SessionGate(sessions, rateLimiter),
    idempotency: new IdempotencyService(em, secretBox),
    usage: new UsageService(em, credits, rateLimiter),
    webhooks: new WebhookService({ em, events, deliveries, allowInsecureUrls: config.ALLOW_PRIVATE_NETWORK_FETCH }),
  };
}

export type Services = ReturnType<typeof createServices>;
