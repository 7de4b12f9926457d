import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from './sql.js';

/** The tables whose rows carry an outbox mark (`workflow_started_at`): one workflow per row. */
export type WorkflowOutboxTable = 'analyses' | 'tasks' | 'batches';

/**
 * The outbox mark: the row's workflow is known to exist, so the relay leaves it alone. One statement
 * for every such table, which the analysis, task and batch repositories each held a copy of.
 */
export async function markWorkflowStarted(em: EntityManager, table: WorkflowOutboxTable, id: string): Promise<void> {
  await sql(em, `update ${table} set workflow_started_at = now() where id = ? and workflow_started_at is null`, [id]);
}
