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

/** A payload's data: base64 in a saved recording (test/fixtures/histories), bytes in a fetched history. */
type PayloadData = string | Uint8Array | null | undefined;
type MarkerEvent = {
  markerRecordedEventAttributes?: {
    markerName?: string | null;
    details?: Record<string, { payloads?: { data?: PayloadData }[] | null }> | null;
  } | null;
};

/** The patch ids a history's `core_patch` markers hold, in order: a saved recording's or a fetched one's. */
export function patchIds(events: MarkerEvent[]): string[] {
  const text = (data: PayloadData) =>
    typeof data === 'string' ? Buffer.from(data, 'base64').toString('utf8') : Buffer.from(data!).toString('utf8');
  return events.flatMap((e) =>
    e.markerRecordedEventAttributes?.markerName === 'core_patch'
      ? Object.values(e.markerRecordedEventAttributes.details ?? {}).flatMap((d) =>
          (d.payloads ?? []).map((p) => JSON.parse(text(p.data)).id as string),
        )
      : [],
  );
}
