// The delivery ceiling for `npm run bench:api`: a workflow with one activity that POSTs a body to a
// URL, nothing recorded anywhere. Bundled by the bench's own worker, never by the product's.
import { proxyActivities } from '@temporalio/workflow';

const { post } = proxyActivities<{ post(url: string, body: string): Promise<number> }>({
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 3 },
});

export async function bareDeliveryWorkflow(url: string, body: string): Promise<number> {
  return post(url, body);
}
