// Every workflow the worker registers. Only workflow code and its message definitions live here.
export { analysisWorkflow, analysisProgressQuery } from './analysis.workflow.js';
export { batchWorkflow, batchProgressQuery } from './batch.workflow.js';
export { webhookDeliveryWorkflow, deliveryProgressQuery } from './webhook-delivery.workflow.js';
export { taskWorkflow, changeTaskUpdate, analysisSubmittedSignal, analysisFinishedSignal, taskDeletedSignal, taskStateQuery } from './task.workflow.js';
export { alertSnoozeWorkflow, snoozeSignal } from './alert-snooze.workflow.js';
