import { writeFileSync } from 'node:fs';
import type { Client } from '@temporalio/client';

/**
 * How the histories in test/fixtures/histories were recorded (README there): with `file` given (a
 * test's opt-in RECORD_*_HISTORY variable), the workflow's history, once it has closed, saved as
 * `JSON.stringify({ workflowId, history })`. Without it, nothing.
 */
export async function recordHistory(client: Client, workflowId: string, file: string | undefined): Promise<void> {
  if (!file) return;
  const handle = client.workflow.getHandle(workflowId);
  await handle.result();
  writeFileSync(file, JSON.stringify({ workflowId, history: await handle.fetchHistory() }));
}
