export const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** decisions.md: pending -> in_progress | completed | cancelled; in_progress -> completed | cancelled; the rest final. */
export const TASK_TRANSITIONS: Record<TaskStatus, readonly TaskStatus[]> = {
  pending: ['in_progress', 'completed', 'cancelled'],
  in_progress: ['completed', 'cancelled'],
  completed: [],
  cancelled: [],
};

export function isFinal(status: TaskStatus): boolean {
  return TASK_TRANSITIONS[status].length === 0;
}
