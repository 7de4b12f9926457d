// Every workflow the worker registers. Only workflow code and its message definitions live here.
export { analysisWorkflow, analysisProgressQuery } from './analysis.workflow.js';
export { batchWorkflow, batchProgressQuery } from './batch.workflow.js';
export { webhookDeliveryWorkflow, deliveryProgressQuery } from './webhook-delivery.workflow.js';
