import { dataEnvelope, defineRoute } from '../../http/route.js';
import {
  shareOfShelfQuery,
  shareOfShelfSchema,
  storePerformanceQuery,
  storePerformanceSchema,
} from './report.schemas.js';
import type { ReportService } from './report.service.js';

export function reportRoutes(reports: ReportService) {
  return [
    defineRoute({
      method: 'get',
      path: '/reports/share-of-shelf',
      operationId: 'getShareOfShelf',
      summary: 'Units and products per brand over the look-back window',
      description: 'Products of analyses in the window; `sharePercent` has one decimal and the shares sum to 100.',
      tag: 'Reports',
      query: shareOfShelfQuery,
      status: 200,
      response: dataEnvelope(shareOfShelfSchema),
      handler: async ({ auth, query }) => ({ body: { data: await reports.shareOfShelf(auth.organisationId, query) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/reports/store-performance',
      operationId: 'getStorePerformance',
      summary: 'Per store: tasks, completed tasks, completion rate, average compliance',
      tag: 'Reports',
      query: storePerformanceQuery,
      status: 200,
      response: dataEnvelope(storePerformanceSchema),
      handler: async ({ auth, query }) => ({
        body: { data: await reports.storePerformance(auth.organisationId, query) },
      }),
    }),
  ];
}
