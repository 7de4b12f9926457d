/** Every task queue name in one place; workers and clients import from here. */
export const TASK_QUEUE_NAMES = {
  /** Analysis and batch workflows plus their light activities. */
  analyses: 'shelf-analyses',
  /** CPU-heavy recognition activities, scaled separately. */
  recognition: 'shelf-recognition',
  /** Webhook and callback delivery. */
  deliveries: 'shelf-deliveries',
  /** Task lifecycle and alert timers. */
  tasks: 'shelf-tasks',
} as const;

export type TaskQueues = { [K in keyof typeof TASK_QUEUE_NAMES]: string };

/** A prefix lets several deployments (or parallel test files) share one Temporal namespace. */
export function taskQueues(prefix = ''): TaskQueues {
  return Object.fromEntries(Object.entries(TASK_QUEUE_NAMES).map(([k, v]) => [k, `${prefix}${v}`])) as TaskQueues;
}
