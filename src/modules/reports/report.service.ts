import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../db/sql.js';
import type { ShareOfShelfQuery, StorePerformanceQuery } from './report.schemas.js';

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
    const where = ['p.organisation_id = ?', 'p.created_at >= ?', 'p.created_at < ?'];
    const params: unknown[] = [organisationId, periodStart, periodEnd];
    const needsPlace = !!(q.projectId || q.countries?.length || q.channels?.length);
    // One placeholder per value: the driver expands array bindings itself.
    const oneOf = (column: string, values: string[]) => {
      where.push(`${column} in (${values.map(() => '?').join(', ')})`);
      params.push(...values);
    };
    if (q.brands?.length)
      oneOf(
        `lower(coalesce(p.brand, 'Unknown'))`,
        q.brands.map((b) => b.toLowerCase()),
      );
    if (q.categories?.length) oneOf('p.category', q.categories);
    if (q.countries?.length)
      oneOf(
        'pl.country_code',
        q.countries.map((c) => c.toUpperCase()),
      );
    if (q.channels?.length) oneOf('pl.channel', q.channels);
    if (q.projectId) {
      where.push('pl.project_id = ?');
      params.push(q.projectId);
    }
    const rows = await sql<{ brand: string; units: number; product_count: number }>(
      this.em,
      `select coalesce(p.brand, 'Unknown') as brand, sum(p.units)::int as units, count(*)::int as product_count
         from products p ${needsPlace ? 'join places pl on pl.id = p.place_id' : ''}
        where ${where.join(' and ')}
        group by 1 order by 2 desc, 1`,
      params,
    );
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
    const where = ['t.organisation_id = ?', 't.created_at >= ?', 't.created_at < ?', 't.place_id is not null'];
    const params: unknown[] = [organisationId, periodStart, periodEnd];
    if (q.placeId) {
      where.push('t.place_id = ?');
      params.push(q.placeId);
    }
    if (q.projectId) {
      // The task's own project: a store's tasks may belong to several projects.
      where.push('t.project_id = ?');
      params.push(q.projectId);
    }
    const rows = await sql<{
      place_id: string;
      place_name: string;
      task_count: number;
      completed: number;
      avg_score: string | null;
    }>(
      this.em,
      `select t.place_id, pl.title as place_name, count(*)::int as task_count,
              count(*) filter (where t.status = 'completed')::int as completed,
              round(avg(t.compliance_score), 1) as avg_score
         from tasks t join places pl on pl.id = t.place_id
        where ${where.join(' and ')}
        group by t.place_id, pl.title order by pl.title, t.place_id`,
      params,
    );
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
