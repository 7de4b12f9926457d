import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  WEBHOOK_DELIVERY_WORKFLOW,
  deliveryProgressQuery,
  type AttemptOutcome,
  type DeliveryActivities,
  type EndpointBusy,
  type WebhookDeliveryWorkflow,
} from '../../src/temporal/contracts/delivery.js';
import { DATABASE_REFUSED, NEEDS_ATTENTION } from '../../src/temporal/contracts/durable-steps.js';
import { callerId, entityStatus, useMockedWorker } from '../helpers/mocked-activities.js';

type Attempt = { nextDelayMs: number | null; local: boolean };

/**
 * The webhook delivery workflow's own logic, its activity a function of the test (no database, no
 * receiver): attempts on the retry schedule until an outcome ends it, the first attempt local with the
 * ordinary activity behind it, a busy endpoint asked again without counting, and a delivery that
 * cannot be recorded ending marked for an operator.
 */
// A workflow broken into a loop would hang the run: the suite fails after its timeout instead.
describe('the webhook delivery workflow, with its activities mocked', { timeout: 300_000 }, () => {
  /** Per delivery (workflow id): how its attempts answer, and the attempts as made. */
  const scripts = new Map<
    string,
    { answer: (i: number, attempt: Attempt) => AttemptOutcome | EndpointBusy; attempts: Attempt[] }
  >();
  const activities: DeliveryActivities = {
    async attemptDelivery({ nextDelayMs }) {
      const script = scripts.get(callerId())!;
      const attempt = { nextDelayMs, local: Context.current().info.isLocal };
      script.attempts.push(attempt);
      return script.answer(script.attempts.length - 1, attempt);
    },
    async deliverEvents() {
      throw new Error('a delivery dispatches nothing');
    },
    async dispatchEvents() {
      throw new Error('a delivery dispatches nothing');
    },
  };
  const temporal = useMockedWorker(activities);

  /** Runs one delivery whose attempts answer `answer(i, attempt)` in turn; every attempt as made. */
  async function deliver(
    retryDelaysMs: number[],
    answer: (i: number, attempt: Attempt) => AttemptOutcome | EndpointBusy,
  ) {
    const workflowId = `dlv-mocked-${randomBytes(4).toString('hex')}`;
    const attempts: Attempt[] = [];
    scripts.set(workflowId, { answer, attempts });
    const handle = await temporal.env.client.workflow.start<WebhookDeliveryWorkflow>(WEBHOOK_DELIVERY_WORKFLOW, {
      taskQueue: temporal.taskQueue,
      workflowId,
      args: [{ deliveryId: workflowId, retryDelaysMs, endpoint: 'https://hooks.example/x' }],
    });
    const progress = await handle.result();
    return {
      progress,
      attempts,
      queried: await handle.query(deliveryProgressQuery),
      status: await entityStatus(temporal.env, workflowId),
    };
  }

  it('a first attempt that succeeds is the only one, made locally', async () => {
    const r = await deliver([50, 50], () => ({ outcome: 'succeeded', attempt: 1, status: 200 }));
    assert.deepEqual(r.attempts, [{ nextDelayMs: 50, local: true }]);
    assert.deepEqual(r.progress, { attempts: 1, status: 'succeeded', lastStatusCode: 200, nextAttemptInMs: null });
    assert.deepEqual(r.queried, r.progress);
    assert.equal(r.status, 'succeeded');
  });

  it('retries on the schedule, each attempt told the delay after it, until one succeeds', async () => {
    const r = await deliver([40, 60], (i) =>
      i < 2
        ? { outcome: 'retry', attempt: i + 1, status: 500, retryAfterMs: null }
        : { outcome: 'succeeded', attempt: 3, status: 204 },
    );
    assert.deepEqual(r.attempts, [
      { nextDelayMs: 40, local: true },
      { nextDelayMs: 60, local: false },
      { nextDelayMs: null, local: false },
    ]);
    assert.deepEqual(r.progress, { attempts: 3, status: 'succeeded', lastStatusCode: 204, nextAttemptInMs: null });
  });

  it('a 410 (gone) ends the delivery failed at once, schedule or not', async () => {
    const r = await deliver([40, 40, 40], () => ({ outcome: 'gone', attempt: 1, status: 410 }));
    assert.equal(r.attempts.length, 1);
    assert.deepEqual(r.progress, { attempts: 1, status: 'failed', lastStatusCode: 410, nextAttemptInMs: null });
    assert.equal(r.status, 'failed');
  });

  it('a busy endpoint is asked again with the same attempt, not counted', async () => {
    const r = await deliver([40], (i) =>
      i === 0
        ? { outcome: 'busy' }
        : i === 1
          ? { outcome: 'retry', attempt: 1, status: 503, retryAfterMs: null }
          : { outcome: 'abandoned', attempt: 2, status: 503 },
    );
    // The busy answer's attempt is made again with the same place in the schedule.
    assert.deepEqual(
      r.attempts.map((a) => a.nextDelayMs),
      [40, 40, null],
    );
    assert.deepEqual(r.progress, { attempts: 2, status: 'failed', lastStatusCode: 503, nextAttemptInMs: null });
  });

  it('a local first attempt that throws is made again as the ordinary activity', async () => {
    const r = await deliver([], (_i, { local }) => {
      if (local) throw new Error('bookkeeping lost in the local attempt');
      return { outcome: 'succeeded', attempt: 1, status: 200 };
    });
    assert.deepEqual(r.attempts, [
      { nextDelayMs: null, local: true },
      { nextDelayMs: null, local: false },
    ]);
    assert.deepEqual(r.progress, { attempts: 1, status: 'succeeded', lastStatusCode: 200, nextAttemptInMs: null });
  });

  it('an attempt that cannot be recorded ends the workflow failed, marked for an operator', async () => {
    const r = await deliver([40], () => {
      throw ApplicationFailure.create({ type: DATABASE_REFUSED, message: 'refused', nonRetryable: true });
    });
    assert.deepEqual(r.attempts, [
      { nextDelayMs: 40, local: true },
      { nextDelayMs: 40, local: false },
    ]);
    assert.deepEqual(r.progress, { attempts: 0, status: 'failed', lastStatusCode: null, nextAttemptInMs: null });
    assert.equal(r.status, NEEDS_ATTENTION);
  });
});
