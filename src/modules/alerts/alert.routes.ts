import { dataEnvelope, defineRoute, idParams, listEnvelope } from '../../http/route.js';
import type { AlertCommands } from './alert-commands.js';
import { alertSchema, listAlertsQuery, serializeAlert, updateAlertBody } from './alert.schemas.js';
import type { AlertService } from './alert.service.js';

const params = idParams('alr_01jdq3x4v6m8c9a1b2c3d4e5f6');
const tag = 'Alerts';

export function alertRoutes(alerts: AlertService, commands: AlertCommands) {
  return [
    defineRoute({
      method: 'get',
      path: '/alerts',
      operationId: 'listAlerts',
      summary: 'List system alerts',
      tag,
      query: listAlertsQuery,
      status: 200,
      response: listEnvelope(alertSchema),
      handler: async ({ auth, query }) => {
        const { cursor, limit, ...filters } = query;
        const page = await alerts.list(auth.organisationId, filters, { cursor, limit });
        return { body: { data: page.items.map(serializeAlert), pagination: page.pagination } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/alerts/{id}',
      operationId: 'getAlert',
      summary: 'Get an alert',
      tag,
      params,
      status: 200,
      response: dataEnvelope(alertSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params }) => ({
        body: { data: serializeAlert(await alerts.get(auth.organisationId, params.id)) },
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/alerts/{id}',
      operationId: 'updateAlert',
      summary: 'Mark an alert read, acknowledged, dismissed or snoozed; pin it',
      description: 'A snoozed alert returns to `unread` when its snooze ends (a durable timer).',
      tag,
      params,
      body: updateAlertBody,
      status: 200,
      response: dataEnvelope(alertSchema),
      errors: ['NOT_FOUND'],
      handler: async ({ auth, params, body }) => ({
        body: { data: serializeAlert(await commands.update(auth.organisationId, params.id, body, auth.actorId)) },
      }),
    }),
  ];
}
