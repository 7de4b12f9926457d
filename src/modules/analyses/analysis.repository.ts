import { decodeCursor, toPage, type Page } from '../../lib/pagination.js';
import { preparedSql } from '../../db/sql.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Analysis, AnalysisStatus } from './analysis.entity.js';

/** What a batch workflow needs of each of its analyses to start it. */
export type BatchMember = {
  id: string;
  organisationId: string;
  imageUrl: string;
  externalId: string | null;
  placeId: string | null;
  taskId: string | null;
};

export type AnalysisFilters = { status?: AnalysisStatus; externalId?: string; placeId?: string };

/** One row of a list: what serializeAnalysis shows, nothing else. */
export type AnalysisListRow = Pick<
  Analysis,
  'id' | 'status' | 'totalRuns' | 'completedRuns' | 'failedRuns' | 'externalId' | 'metadata' | 'placeId' | 'taskId'
> & {
  createdAt: string;
  completedAt: string | null;
};

/** ISO 8601 in UTC with milliseconds, as Date.toISOString() writes it. */
const ISO = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

type Raw = {
  id: string;
  status: AnalysisStatus;
  total_runs: number;
  completed_runs: number;
  failed_runs: number;
  created_at: string;
  external_id: string | null;
  metadata: Record<string, string> | null;
  place_id: string | null;
  task_id: string | null;
  completed_at: string | null;
};

export class AnalysisRepository extends TenantRepository<Analysis> {
  /**
   * The hottest read of the API, so one plain keyset query and plain rows: hydrating 50 entities
   * into the identity map cost several times the query itself (bench:api), and a list never
   * changes what it reads.
   */
  async list(
    organisationId: string,
    filters: AnalysisFilters,
    page: Page,
  ): Promise<{ items: AnalysisListRow[]; pagination: ReturnType<typeof toPage>['pagination'] }> {
    const where = ['organisation_id = ?'];
    const params: unknown[] = [organisationId];
    const add = (condition: string, value: unknown) => {
      where.push(condition);
      params.push(value);
    };
    if (filters.status) add('status = ?', filters.status);
    if (filters.externalId) add('external_id = ?', filters.externalId);
    if (filters.placeId) add('place_id = ?', filters.placeId);
    if (page.cursor) add('id < ?', decodeCursor(page.cursor));
    const rows = await preparedSql<Raw>(
      this.getEntityManager(),
      `select id, status, total_runs, completed_runs, failed_runs, ${ISO('created_at')} as created_at, external_id, metadata, place_id, task_id,
              ${ISO('completed_at')} as completed_at
         from analyses where ${where.join(' and ')} order by id desc limit ?`,
      [...params, page.limit + 1],
    );
    return toPage(
      rows.map((r) => ({
        id: r.id,
        status: r.status,
        totalRuns: r.total_runs,
        completedRuns: r.completed_runs,
        failedRuns: r.failed_runs,
        createdAt: r.created_at,
        externalId: r.external_id,
        metadata: r.metadata,
        placeId: r.place_id,
        taskId: r.task_id,
        completedAt: r.completed_at,
      })),
      page.limit,
    );
  }

  /** A batch's analyses in id order (the order their workflows start in). */
  async batchMembers(batchId: string): Promise<BatchMember[]> {
    const rows = await this.find(
      { batchId },
      { orderBy: { id: 'asc' }, fields: ['id', 'organisationId', 'imageUrl', 'externalId', 'placeId', 'taskId'] },
    );
    return rows.map((a) => ({
      id: a.id,
      organisationId: a.organisationId,
      imageUrl: a.imageUrl,
      externalId: a.externalId ?? null,
      placeId: a.placeId ?? null,
      taskId: a.taskId ?? null,
    }));
  }
}
