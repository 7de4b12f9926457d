import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { BATCH_WINDOW, analysisWorkflowInput } from '../../src/temporal/contracts/analysis.js';
import { workflowBundle } from '../../workers/create-workers.js';

const dir = resolve(import.meta.dirname, '../fixtures/histories');

/**
 * Analysis workflows recorded before a change to their steps must still replay (a worker picking up
 * one that was running when the new code was deployed): each change is behind a patch, and these are
 * real histories recorded with the code before it (test/fixtures/histories, README there).
 */
describe('analysis workflow histories from earlier code replay on this code', () => {
  for (const name of ['analysis-completed-ordinary-fetch', 'analysis-failed-ordinary-fetch']) {
    it(`replays ${name} (the image fetched by an ordinary activity, before local-fetch)`, async () => {
      const { workflowId, history } = JSON.parse(readFileSync(`${dir}/${name}.json`, 'utf8')) as {
        workflowId: string;
        history: { events: { activityTaskScheduledEventAttributes?: { activityType?: { name?: string } } }[] };
      };
      // The recording is what it says: the fetch ran as an ordinary activity.
      assert.ok(
        history.events.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'fetchImage'),
      );
      // Saved as JSON.stringify left the SDK's objects; fromObject makes them messages again (the SDK's
      // own historyFromJSON wants proto3 JSON, which this is not).
      const message = proto.temporal.api.history.v1.History.fromObject(history);
      await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, message, workflowId);
    });
  }
});

describe('batch workflow histories from earlier code replay on this code', () => {
  it('replays batch-two-children (children started with a hand-built input, before analysisWorkflowInput())', async () => {
    const { workflowId, history } = JSON.parse(readFileSync(`${dir}/batch-two-children.json`, 'utf8')) as {
      workflowId: string;
      history: {
        events: {
          startChildWorkflowExecutionInitiatedEventAttributes?: { input?: { payloads?: { data?: string }[] } };
        }[];
      };
    };
    // The children's inputs as recorded are what analysisWorkflowInput() builds, key for key: the
    // same start commands, so the change needed no patch marker.
    const inputs = history.events.flatMap((e) =>
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
    const message = proto.temporal.api.history.v1.History.fromObject(history);
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, message, workflowId);
  });
});

describe('batch workflow histories recorded since the batch window replay on this code', () => {
  it('replays batch-window-twelve-children (12 children, at most BATCH_WINDOW in flight)', async () => {
    const { workflowId, history } = JSON.parse(readFileSync(`${dir}/batch-window-twelve-children.json`, 'utf8')) as {
      workflowId: string;
      history: {
        events: {
          eventType?: string;
          markerRecordedEventAttributes?: {
            markerName?: string;
            details?: Record<string, { payloads?: { data?: string }[] }>;
          };
        }[];
      };
    };
    // The recording is what it says: the batch-window patch marker, then the children started a window
    // at a time (no more than BATCH_WINDOW started before the first closed), all 12 in the end.
    const patches = history.events.flatMap((e) =>
      e.markerRecordedEventAttributes?.markerName === 'core_patch'
        ? Object.values(e.markerRecordedEventAttributes.details ?? {}).flatMap((d) =>
            (d.payloads ?? []).map((p) => JSON.parse(Buffer.from(p.data!, 'base64').toString('utf8')).id),
          )
        : [],
    );
    assert.deepEqual(patches, ['batch-window']);
    const types = history.events.map((e) => e.eventType);
    const starts = types.filter((t) => t === 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED').length;
    const firstClose = types.indexOf('EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED');
    const startedBeforeFirstClose = types
      .slice(0, firstClose)
      .filter((t) => t === 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED').length;
    assert.equal(starts, 12);
    assert.equal(startedBeforeFirstClose, BATCH_WINDOW);
    const message = proto.temporal.api.history.v1.History.fromObject(history);
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, message, workflowId);
  });
});
