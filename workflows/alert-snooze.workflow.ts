import { condition, defineSignal, log, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { AlertActivities } from '../activities/alert.activities.js';
import { BOOKKEEPING, NEEDS_ATTENTION } from './shared/durable-steps.js';
import { SA } from './shared/search-attributes.js';

/** A new or changed snooze deadline (ISO date-time); null when the alert was un-snoozed by hand. */
export const snoozeSignal = defineSignal<[{ until: string | null }]>('snooze');

const { endAlertSnooze } = proxyActivities<AlertActivities>(BOOKKEEPING);

/**
 * One per alert while it is snoozed (workflow id = alert id): a durable timer to the deadline, reset
 * by each new snooze, that puts the alert back to unread. No polling.
 */
export async function alertSnoozeWorkflow(input: { alertId: string; until: string }): Promise<void> {
  let until: string | null = input.until;
  let changed = false;
  setHandler(snoozeSignal, (s) => {
    until = s.until;
    changed = true;
  });
  while (until) {
    changed = false;
    const deadline = until;
    const interrupted = await condition(() => changed, Math.max(0, Date.parse(deadline) - Date.now()));
    if (!interrupted) {
      try {
        await endAlertSnooze({ alertId: input.alertId, until: deadline });
      } catch (err) {
        // The alert stays snoozed with its deadline past, which the API shows; the workflow is
        // marked for an operator, and any new snooze or status change by a user sets it right.
        log.error('snooze could not be ended', { alertId: input.alertId, error: String(err) });
        upsertSearchAttributes([{ key: SA.status, value: NEEDS_ATTENTION }]);
      }
      return;
    }
  }
}
