import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { createActivities, QUEUE_ACTIVITIES, queueActivities, type Activities } from '../../activities/index.js';
import { config } from '../../src/config.js';
import { initORM, type Orm } from '../../src/db/orm.js';
import type { TaskQueues } from '../../src/temporal/contracts/task-queues.js';

const workflowsDir = resolve(import.meta.dirname, '../../workflows');

/** The queue each workflow is started on (src/modules/*-commands.ts, event-dispatcher.ts; a batch's children on its own). */
const QUEUE_OF: Record<string, keyof TaskQueues> = {
  'analysis.workflow.ts': 'analyses',
  'batch.workflow.ts': 'analyses',
  'batch-turns.workflow.ts': 'analyses',
  'task.workflow.ts': 'tasks',
  'alert-snooze.workflow.ts': 'tasks',
  'plan-period.workflow.ts': 'tasks',
  'webhook-delivery.workflow.ts': 'deliveries',
};

/**
 * Each queue's worker registers only its workflows' activities (workers/create-workers.ts): one left
 * out would fail its workflow's step on that queue as not registered, so every activity a workflow
 * names must be in its queue's set. The analysis workflow's recognition passes go to the recognition
 * queue (its `recognitionTaskQueue`), the only activity that does.
 */
describe('activity sets per task queue', () => {
  let orm: Orm;
  let all: Activities;
  before(async () => {
    orm = await initORM(process.env.DATABASE_URL!);
    const connection = Connection.lazy({ address: config().TEMPORAL_ADDRESS });
    all = createActivities({
      orm,
      config: config(),
      client: new Client({ connection, namespace: config().TEMPORAL_NAMESPACE }),
      recognizer: () => Promise.reject(new Error('no recognition here')),
    });
  });
  after(() => orm.close());

  it('every workflow has its queue here', () => {
    assert.deepEqual(
      readdirSync(workflowsDir)
        .filter((f) => f.endsWith('.workflow.ts'))
        .sort(),
      Object.keys(QUEUE_OF).sort(),
    );
  });

  for (const [file, queue] of Object.entries(QUEUE_OF)) {
    it(`${file}: each activity it names is registered on the ${queue} queue`, () => {
      const code = readFileSync(resolve(workflowsDir, file), 'utf8');
      const named = Object.keys(all).filter((name) => new RegExp(`\\b${name}\\b`).test(code));
      // The batch line only signals (D240); every other workflow has steps of its own.
      if (file === 'batch-turns.workflow.ts') assert.deepEqual(named, []);
      else assert.ok(named.length > 0, `${file} names no activity`);
      const registered = Object.keys(queueActivities(all, queue));
      const onRecognition = Object.keys(queueActivities(all, 'recognition'));
      for (const name of named) {
        const where = name === 'recognizeImage' ? onRecognition : registered;
        assert.ok(where.includes(name), `${name} (${file}) is not registered on its queue`);
      }
    });
  }

  it('every activity is registered on some queue, the recognition queue runs recognition only', () => {
    const registered = new Set(Object.values(QUEUE_ACTIVITIES).flat());
    assert.deepEqual(
      Object.keys(all).filter((name) => !registered.has(name as keyof Activities)),
      [],
    );
    assert.deepEqual(Object.keys(queueActivities(all, 'recognition')), ['recognizeImage']);
    for (const queue of Object.keys(QUEUE_ACTIVITIES) as (keyof TaskQueues)[])
      for (const fn of Object.values(queueActivities(all, queue))) assert.equal(typeof fn, 'function');
  });
});
