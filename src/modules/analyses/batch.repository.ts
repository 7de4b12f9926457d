import { sql } from '../../db/sql.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Batch } from './batch.entity.js';

export class BatchRepository extends TenantRepository<Batch> {
  /** The outbox mark: the batch's workflow is known to exist. */
  async markWorkflowStarted(batchId: string): Promise<void> {
    await sql(
      this.getEntityManager(),
      `update batches set workflow_started_at = now() where id = ? and workflow_started_at is null`,
      [batchId],
    );
  }
}
