import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { BATCH_WINDOW, analysisWorkflowInput } from '../../src/temporal/contracts/analysis.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';
import { patchIds } from '../helpers/record-history.js';

const dir = resolve(import.meta.dirname, '../fixtures/histories');

type Payloads = { payloads?: { data?: string }[] };
type Event = {
  eventType?: string;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
  markerRecordedEventAttributes?: { markerName?: string; details?: Record<string, Payloads> };
  startChildWorkflowExecutionInitiatedEventAttributes?: { input?: Payloads };
};
type Recording = { workflowId: string; history: { events: Event[] } };

const decode = (p: { data?: string }) => (p.data ? JSON.parse(Buffer.from(p.data, 'base64').toString('utf8')) : null);
const load = (name: string): Recording => JSON.parse(readFileSync(`${dir}/${name}.json`, 'utf8'));
/** The ordinary activities the recording scheduled, in order. */
const activities = ({ history }: Recording) =>
  history.events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
/** The local activities it ran (their markers), in order. */
const localActivities = ({ history }: Recording) =>
  history.events.flatMap((e) =>
    e.markerRecordedEventAttributes?.markerName === 'core_local_activity'
      ? (e.markerRecordedEventAttributes.details?.data?.payloads ?? []).map((p) => decode(p).activity_type as string)
      : [],
  );
/** The patch markers it holds, in order. */
const patches = ({ history }: Recording) => patchIds(history.events);
const count = ({ history }: Recording, type: string) => history.events.filter((e) => e.eventType === type).length;

/**
 * Replays the recording on this code's workflow bundle: a nondeterminism error (a command the history
 * does not hold) fails it. Saved as JSON.stringify left the SDK's objects; fromObject makes them
 * messages again (the SDK's own historyFromJSON wants proto3 JSON, which this is not).
 */
async function replay({ workflowId, history }: Recording) {
  const message = proto.temporal.api.history.v1.History.fromObject(history);
  await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, message, workflowId);
}

/**
 * Workflows recorded before a change to their steps must still replay (a worker picking up one that
 * was running when the new code was deployed): each change is behind a `patched()` marker, and these
 * are real histories recorded with the code before it and with the code since
 * (test/fixtures/histories, README there: which commit, which test). Each test first asserts the
 * recording is what it says (its activities and markers), then replays it.
 */
describe('analysis workflow histories replay on this code', () => {
  for (const [name, local] of [
    ['analysis-completed-ordinary-fetch', ['finalizeAnalysis', 'dispatchEvents']],
    ['analysis-failed-ordinary-fetch', ['dispatchEvents']],
  ] as const) {
    it(`replays ${name} (the image fetched by an ordinary activity, before local-fetch and preview-after-result)`, async () => {
      const recording = load(name);
      // Recorded since local-finalize-and-dispatch, before the other analysis patches: the fetch ran
      // as an ordinary activity, the steps after it (finalize or fail, then dispatch) as before.
      assert.deepEqual(patches(recording), ['local-finalize-and-dispatch']);
      assert.equal(activities(recording)[0], 'fetchImage');
      assert.deepEqual(localActivities(recording), local);
      await replay(recording);
    });
  }

  it('replays analysis-on-final-task (every analysis patch taken, the analysis recorded on a task already final)', async () => {
    const recording = load('analysis-on-final-task');
    assert.deepEqual(patches(recording), [
      'preview-after-result',
      'local-fetch',
      'local-finalize-and-dispatch',
      'record-analysis-on-final-task',
    ]);
    assert.deepEqual(localActivities(recording), ['fetchImage', 'finalizeAnalysis', 'dispatchEvents', 'storePreview']);
    assert.deepEqual(activities(recording), ['recognizeImage', 'completeTaskFromAnalysis']);
    // Both signals to the task's workflow failed: it had ended (the task completed by hand).
    assert.equal(count(recording, 'EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED'), 2);
    await replay(recording);
  });
  it('replays analysis-first-delivery-here (since first-delivery-in-analysis: the webhook’s first attempt made by the analysis)', async () => {
    const recording = load('analysis-first-delivery-here');
    assert.deepEqual(patches(recording), [
      'preview-after-result',
      'local-fetch',
      'local-finalize-and-dispatch',
      'first-delivery-in-analysis',
    ]);
    // The deliveries' first attempts (deliverEvents) instead of dispatchEvents; no delivery workflow started.
    assert.deepEqual(localActivities(recording).sort(), [
      'deliverEvents',
      'fetchImage',
      'finalizeAnalysis',
      'storePreview',
    ]);
    assert.deepEqual(activities(recording), ['recognizeImage']);
    await replay(recording);
  });
  it('replays analysis-preview-after-deliveries (since preview-after-deliveries: the preview after the first attempts, D294)', async () => {
    const recording = load('analysis-preview-after-deliveries');
    assert.deepEqual(patches(recording), [
      'preview-after-result',
      'local-fetch',
      'local-finalize-and-dispatch',
      'first-delivery-in-analysis',
      'preview-after-deliveries',
    ]);
    // In this order: the preview's local activity is scheduled once the first attempts have ended.
    assert.deepEqual(localActivities(recording), ['fetchImage', 'finalizeAnalysis', 'deliverEvents', 'storePreview']);
    assert.deepEqual(activities(recording), ['recognizeImage']);
    await replay(recording);
  });
  // Since analysis-steps-2026-11 (D372): one marker for the five changes, and one TemporalChangeVersion
  // upsert beside the status; 18 events where analysis-preview-after-deliveries has 26.
  for (const [name, events, scheduled] of [
    ['analysis-steps-2026-11', 18, ['recognizeImage']],
    // A task already final: both signals to its workflow failed, the analysis recorded on it.
    ['analysis-steps-on-final-task', 34, ['recognizeImage', 'completeTaskFromAnalysis']],
  ] as const) {
    it(`replays ${name} (the analysis changes behind one marker, D372)`, async () => {
      const recording = load(name);
      assert.deepEqual(patches(recording), ['analysis-steps-2026-11']);
      assert.equal(count(recording, 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES'), 2);
      assert.equal(recording.history.events.length, events);
      assert.deepEqual(localActivities(recording), ['fetchImage', 'finalizeAnalysis', 'deliverEvents', 'storePreview']);
      assert.deepEqual(activities(recording), scheduled);
      await replay(recording);
    });
  }
});

describe('batch workflow histories replay on this code', () => {
  it('replays batch-two-children (children started with a hand-built input, before analysisWorkflowInput())', async () => {
    const recording = load('batch-two-children');
    // The children's inputs as recorded are what analysisWorkflowInput() builds, key for key: the
    // same start commands, so the change needed no patch marker.
    const inputs = recording.history.events.flatMap((e) =>
      (e.startChildWorkflowExecutionInitiatedEventAttributes?.input?.payloads ?? []).map((p) =>
        Buffer.from(p.data!, 'base64').toString('utf8'),
      ),
    );
    assert.equal(inputs.length, 2);
    for (const recorded of inputs) {
      const { analysisId, taskId, recognitionTaskQueue, heartbeatTimeoutMs } = JSON.parse(recorded);
      const built = analysisWorkflowInput(
        { id: analysisId, organisationId: 'org_x', imageUrl: 'https://example.com/x.png', taskId },
        recognitionTaskQueue,
        heartbeatTimeoutMs,
      );
      assert.equal(JSON.stringify(built), recorded);
    }
    assert.deepEqual(patches(recording), []);
    await replay(recording);
  });

  it('replays batch-window-twelve-children (12 children, at most BATCH_WINDOW in flight)', async () => {
    const recording = load('batch-window-twelve-children');
    // The batch-window patch marker, then the children started a window at a time (no more than
    // BATCH_WINDOW started before the first closed), all 12 in the end.
    assert.deepEqual(patches(recording), ['batch-window']);
    const types = recording.history.events.map((e) => e.eventType);
    const firstClose = types.indexOf('EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED');
    const startedBeforeFirstClose = types
      .slice(0, firstClose)
      .filter((t) => t === 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED').length;
    assert.equal(count(recording, 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED'), 12);
    assert.equal(startedBeforeFirstClose, BATCH_WINDOW);
    await replay(recording);
  });

  it('replays batch-turns-waited (a batch that waited for its turn in its organisation’s line)', async () => {
    const recording = load('batch-turns-waited');
    // Both batch markers; its place asked for (queueBatchForTurn) before any child, the turn signal
    // received, its 10 children through the window, the turn given back by signal.
    assert.deepEqual(patches(recording), ['batch-window', 'organisation-batch-turns']);
    assert.deepEqual(activities(recording), ['listBatchAnalyses', 'queueBatchForTurn']);
    const types = recording.history.events.map((e) => e.eventType);
    assert.ok(
      types.indexOf('EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED') <
        types.indexOf('EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED'),
    );
    assert.equal(count(recording, 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED'), BATCH_WINDOW + 2);
    assert.equal(count(recording, 'EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED'), 1);
    await replay(recording);
  });
});

describe('batch line histories replay on this code', () => {
  it('replays batch-turns-line (an organisation’s line: three batches, two turns, ended when idle)', async () => {
    const recording = load('batch-turns-line');
    assert.deepEqual(patches(recording), []);
    // Three batches asked and three said they were done; three turns granted; the idle wait ran out.
    assert.equal(count(recording, 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED'), 6);
    assert.equal(count(recording, 'EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_SIGNALED'), 3);
    assert.equal(count(recording, 'EVENT_TYPE_TIMER_FIRED'), 1);
    assert.equal(count(recording, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'), 1);
    await replay(recording);
  });
});

describe('task workflow histories replay on this code', () => {
  it('replays task-two-changes-activity (two changes by update, each an ordinary activity, before task-change-local-answer-first)', async () => {
    const recording = load('task-two-changes-activity');
    assert.deepEqual(patches(recording), []);
    // Each change, then its events' dispatch, as ordinary activities, before the update's answer.
    assert.deepEqual(activities(recording), ['applyTaskChange', 'dispatchEvents', 'applyTaskChange', 'dispatchEvents']);
    assert.deepEqual(localActivities(recording), []);
    assert.equal(count(recording, 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED'), 2);
    assert.equal(count(recording, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'), 1);
    await replay(recording);
  });

  it('replays task-two-changes-local (the same two changes since task-change-local-answer-first)', async () => {
    const recording = load('task-two-changes-local');
    assert.deepEqual(patches(recording), ['task-change-local-answer-first']);
    assert.deepEqual(activities(recording), []);
    assert.deepEqual(localActivities(recording), [
      'applyTaskChange',
      'dispatchEvents',
      'applyTaskChange',
      'dispatchEvents',
    ]);
    // The first update is answered once its change is committed, before its events are dispatched.
    const { events } = recording.history;
    const answered = events.findIndex((e) => e.eventType === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED');
    assert.deepEqual(localActivities({ ...recording, history: { events: events.slice(0, answered) } }), [
      'applyTaskChange',
    ]);
    assert.equal(count(recording, 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED'), 2);
    assert.equal(count(recording, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'), 1);
    await replay(recording);
  });
});

describe('webhook delivery workflow histories replay on this code', () => {
  it('replays delivery-four-attempts-activity (three failures then success, every attempt an ordinary activity, before local-first-attempt)', async () => {
    const recording = load('delivery-four-attempts-activity');
    assert.deepEqual(patches(recording), []);
    assert.deepEqual(activities(recording), Array(4).fill('attemptDelivery'));
    assert.deepEqual(localActivities(recording), []);
    assert.equal(count(recording, 'EVENT_TYPE_TIMER_FIRED'), 3);
    await replay(recording);
  });

  it('replays delivery-after-first-attempt (started after the analysis made the first attempt, answered 500: the wait, then the second)', async () => {
    const recording = load('delivery-after-first-attempt');
    // Started with attemptsMade: no patch marker (histories before carry no such input), no local attempt.
    assert.deepEqual(patches(recording), []);
    assert.deepEqual(localActivities(recording), []);
    assert.deepEqual(activities(recording), ['attemptDelivery']);
    assert.equal(count(recording, 'EVENT_TYPE_TIMER_FIRED'), 1);
    await replay(recording);
  });

  it('replays delivery-four-attempts-local-first (the same since local-first-attempt: the first attempt local)', async () => {
    const recording = load('delivery-four-attempts-local-first');
    assert.deepEqual(patches(recording), ['local-first-attempt']);
    assert.deepEqual(localActivities(recording), ['attemptDelivery']);
    assert.deepEqual(activities(recording), Array(3).fill('attemptDelivery'));
    assert.equal(count(recording, 'EVENT_TYPE_TIMER_FIRED'), 3);
    await replay(recording);
  });
});
