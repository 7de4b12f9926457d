import { analysisRoutes } from '../modules/analyses/analysis.routes.js';
import { productRoutes } from '../modules/products/product.routes.js';
import { inventoryRoutes } from '../modules/inventory/inventory.routes.js';
import { placeRoutes } from '../modules/places/place.routes.js';
import { webhookRoutes } from '../modules/webhooks/webhook.routes.js';
import { apiKeyRoutes } from '../modules/api-keys/api-key.routes.js';
import { usageRoutes } from '../modules/usage/usage.routes.js';
import { taskRoutes } from '../modules/tasks/task.routes.js';
import { alertRoutes } from '../modules/alerts/alert.routes.js';
import { accountRoutes } from '../modules/accounts/account.routes.js';
import { orderRoutes } from '../modules/orders/order.routes.js';
import { reportRoutes } from '../modules/reports/report.routes.js';
import { memberRoutes } from '../modules/members/member.routes.js';
import { projectRoutes } from '../modules/projects/project.routes.js';
import { sessionRoutes } from '../modules/sessions/session.routes.js';
import type { Commands } from '../commands.js';
import type { Services } from '../services.js';
import type { RouteDefinition } from './route.js';

/** Every API route; the router and the OpenAPI document are both built from this list. */
export function apiRoutes(s: Services, c: Commands): RouteDefinition[] {
  return [
    ...projectRoutes(s.projects),
    ...placeRoutes(s.places),
    ...inventoryRoutes(s.inventory),
    ...analysisRoutes(s.analyses, c.analyses),
    ...productRoutes(s.products),
    ...webhookRoutes(s.webhooks, c.webhooks),
    ...taskRoutes(s.tasks, c.tasks),
    ...alertRoutes(s.alerts, c.alerts),
    ...accountRoutes(s.accounts),
    ...orderRoutes(s.orders),
    ...reportRoutes(s.reports),
    ...memberRoutes(s.members, s.sessions),
    ...usageRoutes(s.usage),
    ...apiKeyRoutes(s.apiKeys),
    ...sessionRoutes(s.sessions),
  ];
}
