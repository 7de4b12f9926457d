import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import protos from '@temporalio/proto';
import type { Activities } from '../../../activities/index.js';
import { sql } from '../../../src/db/sql.js';
import { analysisProgressQuery, BATCH_WINDOW } from '../../../src/temporal/contracts/analysis.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../../helpers/image-host.js';
import { ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { waitFor } from '../../helpers/wait.js';
import { startTestWorkers, TEST_RECOGNITION_SLOTS, uniquePrefix } from '../../helpers/worker.js';

/** The backlog one organisation builds before another submits (enough that arrival order is plain). */
const BACKLOG = 40;
/**
 * The worst place a photo dispatched fairly may take: the worker's slots all fill at once when it
 * starts, and a photo whose lane is ahead is in that first round or the next dispatch.
 */
const FAIR_RANK = TEST_RECOGNITION_SLOTS + 1;

/**
 * Fair dispatch on the real dev server (started with matching.enableFairness by scripts/temporal.ts):
 * one organisation's photos are backlogged on the recognition queue, with its worker not yet polling,
 * then one more photo arrives; once the worker starts, the order recognition passes begin in is the
 * order the queue dispatched them.
 */
describe('fair dispatch across organisations (real dev server, recognition backlog)', () => {
  let host: ImageHost;
  before(async () => {
    host = await startImageHost({ '/shelf.png': { body: await pngOfWidth(100) } });
  });
  after(() => host.close());

  /**
   * An API and workers on task queues of their own, the recognition worker held until `rankOf`:
   * each scenario's backlog starts from an empty queue that no poller has taken tasks from.
   */
  async function scenario<T>(run: (s: Scenario) => Promise<T>): Promise<T> {
    const api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('fair'), ANALYSIS_RUNS: 1 });
    /** Analysis ids in the order their recognition passes started. */
    const started: string[] = [];
    const recordOrder = (a: Activities): Activities => ({
      ...a,
      recognizeImage: (input) => {
        started.push(input.analysisId);
        return a.recognizeImage(input);
      },
    });
    let workers;
    try {
      workers = await startTestWorkers(api.runtime, new ScriptedRecognizer(() => []), recordOrder, {
        recognitionLater: true,
      });
      return await run(new Scenario(api, host, workers, started));
    } finally {
      await workers?.stop();
      await api.close();
    }
  }

  it("one organisation's batch backlog does not hold back another organisation's single photo", (t) =>
    scenario(async (s) => {
      const [a, b] = [await s.org(), await s.org()];
      const backlog = await s.submitBatch(a, BACKLOG);
      // A batch keeps BATCH_WINDOW analyses in flight (decisions.md D214): those are its backlog on
      // the recognition queue; the rest start as they finish.
      await s.queued(backlog.slice(0, BATCH_WINDOW), BATCH_WINDOW);
      const late = await s.submitSingle(b);
      await s.queued([late], BATCH_WINDOW + 1);
      const rank = await s.rankOf(backlog, late);
      t.diagnostic(`the late photo was recognized ${rank}th of ${BACKLOG + 1}`);
      assert.ok(rank <= FAIR_RANK, `B's photo was recognized ${rank}th of ${BACKLOG + 1} (at most ${FAIR_RANK}th)`);
    }));

  it("one organisation's backlog of single photos does not hold back another organisation's photo", (t) =>
    scenario(async (s) => {
      const [a, b] = [await s.org(), await s.org()];
      const backlog: string[] = [];
      for (let i = 0; i < BACKLOG; i++) backlog.push(await s.submitSingle(a));
      await s.queued(backlog, BACKLOG);
      const late = await s.submitSingle(b);
      await s.queued([late], BACKLOG + 1);
      const rank = await s.rankOf(backlog, late);
      t.diagnostic(`the late photo was recognized ${rank}th of ${BACKLOG + 1}`);
      assert.ok(rank <= FAIR_RANK, `B's photo was recognized ${rank}th of ${BACKLOG + 1} (at most ${FAIR_RANK}th)`);
    }));

  it("an organisation's single photo goes ahead of its own batch", (t) =>
    scenario(async (s) => {
      const a = await s.org();
      const backlog = await s.submitBatch(a, BACKLOG);
      // A batch keeps BATCH_WINDOW analyses in flight (decisions.md D214): those are its backlog on
      // the recognition queue; the rest start as they finish.
      await s.queued(backlog.slice(0, BATCH_WINDOW), BATCH_WINDOW);
      const late = await s.submitSingle(a);
      await s.queued([late], BATCH_WINDOW + 1);
      const rank = await s.rankOf(backlog, late);
      t.diagnostic(`the late photo was recognized ${rank}th of ${BACKLOG + 1}`);
      assert.ok(
        rank <= FAIR_RANK,
        `the single photo was recognized ${rank}th of ${BACKLOG + 1} (at most ${FAIR_RANK}th)`,
      );
    }));
});

class Scenario {
  constructor(
    private readonly api: TestApi,
    private readonly host: ImageHost,
    private readonly workers: Awaited<ReturnType<typeof startTestWorkers>>,
    private readonly started: string[],
  ) {}

  org(): Promise<TestOrg> {
    return createTestOrg(this.api.runtime, { credits: BACKLOG + 10, maxBatchSize: BACKLOG });
  }

  private image() {
    return { imageUrl: this.host.url('/shelf.png') };
  }

  async submitSingle(o: TestOrg): Promise<string> {
    const res = await this.api.request('POST', '/analyses', { key: o.keys.write, body: this.image() });
    assert.equal(res.status, 202, res.text);
    return res.body.data.id as string;
  }

  async submitBatch(o: TestOrg, n: number): Promise<string[]> {
    const images = Array.from({ length: n }, () => this.image());
    const res = await this.api.request('POST', '/analyses/batch', { key: o.keys.write, body: { images } });
    assert.equal(res.status, 202, res.text);
    return (res.body.data.analyses as { id: string }[]).map((a) => a.id);
  }

  /** The recognition queue's backlog as the server counts it (its matching service holds the tasks). */
  private async recognitionBacklog(): Promise<number> {
    const res = await this.api.runtime.temporal.client.workflowService.describeTaskQueue({
      namespace: this.api.runtime.config.TEMPORAL_NAMESPACE,
      taskQueue: {
        name: this.workers.queues.recognition,
        kind: protos.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL,
      },
      taskQueueType: protos.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      reportStats: true,
    });
    return Number(res.stats?.approximateBacklogCount ?? 0);
  }

  /** Every one of `ids` has its recognition pass scheduled, and the queue holds `backlog` tasks. */
  async queued(ids: string[], backlog: number): Promise<void> {
    const { client } = this.api.runtime.temporal;
    await waitFor(
      `${ids.length} analyses waiting for recognition`,
      async () => {
        for (const id of ids) {
          const progress = await client.workflow
            .getHandle(id)
            .query(analysisProgressQuery)
            .catch(() => null);
          if (progress?.stage !== 'recognizing') return false;
        }
        return true;
      },
      120_000,
      500,
    );
    await waitFor(`a recognition backlog of ${backlog}`, async () => (await this.recognitionBacklog()) >= backlog);
  }

  /** Starts the recognition worker, runs every photo to the end; `late`'s place in the dispatch order (1-based). */
  async rankOf(backlog: string[], late: string): Promise<number> {
    this.workers.startRecognition();
    const ids = [...backlog, late];
    await waitFor(
      'every analysis to complete',
      async () => {
        const [row] = await sql<{ n: string }>(
          this.api.runtime.orm.em.fork(),
          `select count(*) as n from analyses where id in (${ids.map(() => '?').join(', ')}) and status = 'completed'`,
          ids,
        );
        return Number(row!.n) === ids.length;
      },
      180_000,
      500,
    );
    const order = this.started.filter((id) => ids.includes(id));
    assert.equal(new Set(order).size, ids.length, 'every analysis was recognized');
    return order.indexOf(late) + 1;
  }
}
