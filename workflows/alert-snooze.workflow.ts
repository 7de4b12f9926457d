import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { AlertActivities } from '../activities/alert.activities.js';

/** A new or changed snooze deadline (ISO date-time); null when the alert was un-snoozed by hand. */
export const snoozeSignal = defineSignal<[{ until: string | null }]>('snooze');

const { endAlertSnooze } = proxyActivities<AlertActivities>({ startToCloseTimeout: '1 minute', retry: { initialInterval: '1 second', maximumInterval: '30 seconds' } });

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
      await endAlertSnooze({ alertId: input.alertId, until: deadline });
      return;
    }
  }
}
