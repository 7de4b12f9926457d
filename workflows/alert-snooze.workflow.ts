import { condition, log, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import {
  snoozeSignal,
  type AlertActivities,
  type AlertSnoozeInput,
  type AlertSnoozeWorkflow,
} from '../src/temporal/contracts/alert.js';
import { BOOKKEEPING, NEEDS_ATTENTION } from '../src/temporal/contracts/durable-steps.js';
import { SA } from '../src/temporal/contracts/search-attributes.js';

const { endAlertSnooze } = proxyActivities<AlertActivities>(BOOKKEEPING);

/**
 * One per alert while it is snoozed (workflow id = alert id): a durable timer to the deadline, reset
 * by each new snooze, that puts the alert back to unread. No polling.
 */
export async function alertSnoozeWorkflow(input: AlertSnoozeInput): Promise<void> {
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

alertSnoozeWorkflow satisfies AlertSnoozeWorkflow;
