import type { EntityManager } from '@mikro-orm/postgresql';
import type { ShareOfShelfQuery, StorePerformanceQuery } from './report.schemas.js';
import { Product } from '../products/product.entity.js';
import type { ProductRepository } from '../products/product.repository.js';
import { Task } from '../tasks/task.entity.js';
import type { TaskRepository } from '../tasks/task.repository.js';

/**
 * Shares rounded to one decimal that still sum to 100: largest-remainder rounding, so the table a
 * client renders adds up.
 */
export function roundShares(units: number[]): number[] {
  const total = units.reduce((a, b) => a + b, 0);
  if (total === 0) return units.map(() => 0);
  const tenths = units.map((u) => (u * 1000) / total);
  const floored = tenths.map(Math.floor);
  let left = 1000 - floored.reduce((a, b) => a + b, 0);
  const order = tenths.map((t, i) => ({ i, r: t - Math.floor(t) })).sort((a, b) => b.r - a.r);
  for (const { i } of order) {
    if (left-- <= 0) break;
    floored[i]!++;
  }
  return floored.map((f) => f / 10);
}

/** Both reports are single GROUP BY queries over indexed columns; no rows are loaded into Node. */
export class ReportService {
  constructor(private readonly em: EntityManager) {}

  private period(days: number) {
    const periodEnd = new Date();
    const periodStart = new Date(periodEnd.getTime() - days * 86400_000);
    return { periodDays: days, periodStart, periodEnd };
  }

  async shareOfShelf(organisationId: string, q: ShareOfShelfQuery) {
    const { periodStart, periodEnd, periodDays } = this.period(q.days);
    const rows = await this.em
      .getRepository<Product, ProductRepository>(Product)
      .brandUnits(organisationId, periodStart, periodEnd, q);
    const shares = roundShares(rows.map((r) => r.units));
    return {
      brands: rows.map((r, i) => ({
        brand: r.brand,
        units: r.units,
        sharePercent: shares[i]!,
        productCount: r.product_count,
      })),
      totalUnits: rows.reduce((a, r) => a + r.units, 0),
      periodDays,
      periodStart: periodStart.toISOString(),
      periodEnd: periodEnd.toISOString(),
    };
  }

  async storePerformance(organisationId: string, q: StorePerformanceQuery) {
    const { periodStart, periodEnd, periodDays } = this.period(q.days);
    const rows = await this.em
      .getRepository<Task, TaskRepository>(Task)
      .storePerformance(organisationId, periodStart, periodEnd, q);
    return {
      stores: rows.map((r) => ({
        placeId: r.place_id,
        placeName: r.place_name,
        taskCount: r.task_count,
        completedTasks: r.completed,
        completionRate: Math.round((1000 * r.completed) / r.task_count) / 10,
        avgComplianceScore: r.avg_score === null ? null : Number(r.avg_score),
      })),
      periodDays,
      periodStart: periodStart.toISOString(),
      periodEnd: periodEnd.toISOString(),
    };
  }
}
