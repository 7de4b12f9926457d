import { sql } from '../../db/sql.js';
import { markWorkflowStarted } from '../../db/workflow-started.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Task } from './task.entity.js';
import type { StorePerformanceQuery } from '../reports/report.schemas.js';

export class TaskRepository extends TenantRepository<Task> {
  /** The outbox mark: the task's workflow is known to exist. */
  async markWorkflowStarted(taskId: string): Promise<void> {
    await markWorkflowStarted(this.getEntityManager(), 'tasks', taskId);
  }

  /** Store performance: per place of the period's tasks, how many, how many completed, the mean compliance score. */
  storePerformance(
    organisationId: string,
    periodStart: Date,
    periodEnd: Date,
    q: Pick<StorePerformanceQuery, 'placeId' | 'projectId'>,
  ): Promise<
    { place_id: string; place_name: string; task_count: number; completed: number; avg_score: string | null }[]
  > {
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
    return sql<{
      place_id: string;
      place_name: string;
      task_count: number;
      completed: number;
      avg_score: string | null;
    }>(
      this.getEntityManager(),
      `select t.place_id, pl.title as place_name, count(*)::int as task_count,
              count(*) filter (where t.status = 'completed')::int as completed,
              round(avg(t.compliance_score), 1) as avg_score
         from tasks t join places pl on pl.id = t.place_id
        where ${where.join(' and ')}
        group by t.place_id, pl.title order by pl.title, t.place_id`,
      params,
    );
  }
}
