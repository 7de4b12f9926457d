// Every workflow the worker registers, and nothing else: message definitions live in the contracts
// (src/temporal/contracts/), which callers import instead of this file.
export { analysisWorkflow } from './analysis.workflow.js';
export { batchWorkflow } from './batch.workflow.js';
export { batchTurnsWorkflow } from './batch-turns.workflow.js';
export { webhookDeliveryWorkflow } from './webhook-delivery.workflow.js';
export { taskWorkflow } from './task.workflow.js';
export { alertSnoozeWorkflow } from './alert-snooze.workflow.js';
export { planPeriodWorkflow } from './plan-period.workflow.js';
