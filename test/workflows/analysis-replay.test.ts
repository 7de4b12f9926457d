import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
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
