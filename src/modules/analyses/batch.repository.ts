import { markWorkflowStarted } from '../../db/workflow-started.js';
import { TenantRepository } from '../../db/tenant-repository.js';
import type { Batch } from './batch.entity.js';

export class BatchRepository extends TenantRepository<Batch> {
  /** The outbox mark: the batch's workflow is known to exist. */
  async markWorkflowStarted(batchId: string): Promise<void> {
    await markWorkflowStarted(this.getEntityManager(), 'batches', batchId);
  }
}
