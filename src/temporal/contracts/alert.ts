// The alert snooze workflow's contract (see analysis.ts for how contracts are used).
import { defineSignal } from '@temporalio/workflow';

export const ALERT_SNOOZE_WORKFLOW = 'alertSnoozeWorkflow';

export type AlertSnoozeInput = { alertId: string; until: string };
export type AlertSnoozeWorkflow = (input: AlertSnoozeInput) => Promise<void>;
/** A new or changed snooze deadline (ISO date-time); null when the alert was un-snoozed by hand. */
export const snoozeSignal = defineSignal<[{ until: string | null }]>('snooze');

export interface AlertActivities {
  /** Puts the alert back to unread if it is still snoozed until exactly `until`. */
  endAlertSnooze(input: { alertId: string; until: string }): Promise<boolean>;
}
