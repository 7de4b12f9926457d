import { decodeCursor, toPage, type Page } from '../../lib/pagination.js';
import { preparedSql, sql } from '../../db/sql.js';
import { markWorkflowStarted } from '../../db/workflow-started.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Analysis, AnalysisStatus } from './analysis.entity.js';
import { CHARGE_EACH, CHARGE_EACH_ENTRIES } from '../credits/credit-ledger.repository.js';
import { idAt } from '../../lib/ids.js';
import type { BatchMember } from '../../temporal/contracts/analysis.js';

/** The most a processing analysis' place in line counts to: beyond it, "at least this many". */
export const QUEUE_AHEAD_CAP = 10_000;

/** One submission's row for `chargeAndInsert`; the callback secret already sealed. */
export type ChargedRow = {
  id: string;
  creditEntryId: string;
  imageUrl: string;
  placeId: string | null;
  taskId: string | null;
  externalId: string | null;
  metadata: Record<string, string> | null;
  callbackUrl: string | null;
  sealedCallbackSecret: string | null;
};

/**
 * A group of single submissions in one autocommitted statement: the organisation's row locked, one
 * credit for each row while they last (plan credits first), the analyses and their ledger rows of
 * those charged. It writes only if the balance left stays at or above `keepAtLeast` (the credits_low
 * threshold): a group that would cross it writes nothing, and its caller takes the transaction that
 * raises the alert with the charge. The charge and its ledger rows are the ledger's (CHARGE_EACH,
 * CHARGE_EACH_ENTRIES); this adds the analyses.
 */
const CHARGE_AND_INSERT = `${CHARGE_EACH},
r as (
  select * from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
    with ordinality as r(id, entry_id, image_url, place_id, task_id, external_id, metadata, callback_url, callback_secret, ord)),
a as (
  insert into analyses (id, organisation_id, created_at, updated_at, image_url, place_id, task_id, external_id, metadata,
                        callback_url, callback_secret, total_runs, total_value)
  select r.id, o.id, ?::timestamptz, ?::timestamptz, r.image_url, r.place_id, r.task_id, r.external_id, r.metadata::jsonb,
         r.callback_url, r.callback_secret, ?::int, 0
    from r, u, o where r.ord <= u.k),
${CHARGE_EACH_ENTRIES}
select o.plan_credits as plan_before, o.payg_credits as payg_before, o.k::int as k, exists (select 1 from u) as charged from o`;

export type AnalysisFilters = {
  status?: AnalysisStatus;
  externalId?: string;
  placeId?: string;
  /** Created at or after. */
  createdAfter?: Date;
  /** Created before. */
  createdBefore?: Date;
};

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
    // By id, not created_at: ids sort by creation time, so a time range is a range of the index the
    // list already walks (organisation, id).
    if (filters.createdAfter) add('id >= ?', idAt('analysis', filters.createdAfter));
    if (filters.createdBefore) add('id < ?', idAt('analysis', filters.createdBefore));
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

  /**
   * CHARGE_AND_INSERT for `rows`, in their order. `charged` false: nothing was written (the group
   * would cross `keepAtLeast`); null: no such organisation.
   */
  async chargeAndInsert(
    organisationId: string,
    rows: ChargedRow[],
    opts: { totalRuns: number; keepAtLeast: number; at: Date },
  ): Promise<{ charged: boolean; taken: number; planBefore: number; paygBefore: number } | null> {
    const col = <K extends keyof ChargedRow>(k: K) => rows.map((r) => r[k]);
    const [row] = await preparedSql<{ plan_before: number; payg_before: number; k: number; charged: boolean }>(
      this.getEntityManager(),
      CHARGE_AND_INSERT,
      [
        rows.length,
        organisationId,
        opts.keepAtLeast,
        col('id'),
        col('creditEntryId'),
        col('imageUrl'),
        col('placeId'),
        col('taskId'),
        col('externalId'),
        rows.map((r) => (r.metadata ? JSON.stringify(r.metadata) : null)),
        col('callbackUrl'),
        col('sealedCallbackSecret'),
        opts.at,
        opts.at,
        opts.totalRuns,
        opts.at,
      ],
    );
    if (!row) return null;
    return { charged: row.charged, taken: row.k, planBefore: row.plan_before, paygBefore: row.payg_before };
  }

  /**
   * How many of the organisation's analyses in `analysis`' lane (single submissions, or batch
   * members) are still processing and were submitted before it, at most QUEUE_AHEAD_CAP: a range of
   * one of the lane's partial indexes (ids sort by creation time), stopped at the cap so a
   * backlog of any size costs the same bounded walk.
   */
  async queueAhead(analysis: Pick<Analysis, 'id' | 'organisationId' | 'batchId'>): Promise<number> {
    const lane = analysis.batchId ? 'batch_id is not null' : 'batch_id is null';
    const [row] = await preparedSql<{ n: number }>(
      this.getEntityManager(),
      `select count(*)::int as n from (
         select 1 from analyses
          where organisation_id = ? and status = 'processing' and ${lane} and id < ?
          limit ${QUEUE_AHEAD_CAP}) ahead`,
      [analysis.organisationId, analysis.id],
    );
    return row?.n ?? 0;
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

  /** Per UTC day (`YYYY-MM-DD`) from the analysis id `fromId` on: submitted, and how many completed, failed, processing. */
  dailyCounts(
    organisationId: string,
    fromId: string,
  ): Promise<{ day: string; submitted: number; completed: number; failed: number; processing: number }[]> {
    return sql<{ day: string; submitted: number; completed: number; failed: number; processing: number }>(
      this.getEntityManager(),
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::int as submitted,
              count(*) filter (where status = 'completed')::int as completed,
              count(*) filter (where status = 'failed')::int as failed,
              count(*) filter (where status = 'processing')::int as processing
         from analyses where organisation_id = ? and id >= ? group by 1`,
      [organisationId, fromId],
    );
  }

  async existsInOrg(organisationId: string, analysisId: string): Promise<boolean> {
    const [found] = await sql(this.getEntityManager(), `select 1 from analyses where id = ? and organisation_id = ?`, [
      analysisId,
      organisationId,
    ]);
    return found !== undefined;
  }

  /** The outbox mark of several analyses at once: their workflows are known to exist. */
  async markWorkflowsStarted(ids: string[]): Promise<void> {
    await sql(
      this.getEntityManager(),
      // Not waited on for its flush to disk: a mark lost to a crash only has the relay start the workflow
      // again, which finds it (decisions.md, "Counts and marks commit without waiting for the disk").
      `update analyses set workflow_started_at = now() from (select set_config('synchronous_commit', 'off', true)) async_commit
        where id in (${ids.map(() => '?').join(', ')}) and workflow_started_at is null`,
      ids,
    );
  }

  /** The outbox mark: the analysis' workflow is known to exist. */
  async markWorkflowStarted(analysisId: string): Promise<void> {
    await markWorkflowStarted(this.getEntityManager(), 'analyses', analysisId);
  }

  /**
   * The analyses a retry selection means, oldest first, each with whether its latest charge was
   * refunded (a retry then charges again).
   */
  retryCandidates(
    organisationId: string,
    selection: { id: string } | { status: 'failed'; since: Date },
  ): Promise<{ id: string; status: AnalysisStatus; error_code: string | null; retries: number; refunded: boolean }[]> {
    const where =
      'id' in selection ? `a.id = ?` : `a.status = 'failed' and a.completed_at >= ? and a.completed_at is not null`;
    return sql<{ id: string; status: AnalysisStatus; error_code: string | null; retries: number; refunded: boolean }>(
      this.getEntityManager(),
      `select a.id, a.status, a.error_code, a.retries, (r.id is not null) as refunded
         from analyses a
         left join lateral (select attempt from credit_entries
                             where analysis_id = a.id and reason = 'analysis' order by attempt desc limit 1) c on true
         left join credit_entries r on r.analysis_id = a.id and r.reason = 'refund' and r.attempt = c.attempt
        where a.organisation_id = ? and ${where}
        order by a.completed_at nulls last, a.id`,
      [organisationId, 'id' in selection ? selection.id : selection.since],
    );
  }
}
