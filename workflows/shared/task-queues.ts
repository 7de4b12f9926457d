/** Every task queue name in one place; workers and clients import from here. */
export const TASK_QUEUES = {
  /** Analysis and batch workflows plus their light activities. */
  analyses: 'shelf-analyses',
  /** CPU-heavy recognition activities, scaled separately. */
  recognition: 'shelf-recognition',
  /** Webhook and callback delivery. */
  deliveries: 'shelf-deliveries',
  /** Task lifecycle and alert timers. */
  tasks: 'shelf-tasks',
} as const;
