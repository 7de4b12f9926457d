/** Pure, shared by the batch workflow (its search attribute) and the API (GET /analyses/batch/{id}). */
export type BatchStatus = 'processing' | 'partial' | 'completed';

/** A batch's status from its counts: processing until one analysis is final, completed when all are. */
export function batchStatus(total: number, finished: number): BatchStatus {
  return finished === 0 ? 'processing' : finished >= total ? 'completed' : 'partial';
}
