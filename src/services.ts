import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { taskQueues } from '../workflows/shared/task-queues.js';
import { config as globalConfig, type Config } from './config.js';
import { createLogger, type Logger } from './lib/logger.js';
import { AnalysisProcessingService } from './modules/analyses/analysis-processing.service.js';
import { AnalysisStarter } from './modules/analyses/analysis-starter.js';
import { AnalysisService } from './modules/analyses/analysis.service.js';
import { ApiKeyService } from './modules/api-keys/api-key.service.js';
import { CreditService } from './modules/credits/credit.service.js';
import { EventService } from './modules/events/event.service.js';
import { InventoryService } from './modules/inventory/inventory.service.js';
import { OrganisationService } from './modules/organisations/organisation.service.js';
import { PlaceService } from './modules/places/place.service.js';
import { ProductService } from './modules/products/product.service.js';
import { ProjectService } from './modules/projects/project.service.js';

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
  let starter: AnalysisStarter | undefined;
  const analysisStarter = () => {
    if (!context.temporal) throw new Error('this process has no Temporal client');
    starter ??= new AnalysisStarter(em, context.temporal, taskQueues(config.TASK_QUEUE_PREFIX), logger);
    return starter;
  };
  return {
    em,
    apiKeys: new ApiKeyService(em),
    credits,
    events,
    organisations: new OrganisationService(em, credits),
    projects,
    places,
    inventory: new InventoryService(em, projects),
    analyses: new AnalysisService(em, credits, places, analysisStarter, config.ANALYSIS_RUNS),
    analysisStarter,
    analysisProcessing: new AnalysisProcessingService(em, credits, events),
    products: new ProductService(em),
  };
}

export type Services = ReturnType<typeof createServices>;
