import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  BATCH_WINDOW,
  ORGANISATION_BATCHES_AT_ONCE,
  batchTurnsWorkflowId,
} from '../../../src/temporal/contracts/analysis.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth } from '../../helpers/image-host.js';
import { recordHistory } from '../../helpers/record-history.js';
import { product, ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { batchCompleted, waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

/** What one organisation may have in flight across all its batches (D240). */
const CAP = ORGANISATION_BATCHES_AT_ONCE * BATCH_WINDOW;
/** A's batches: one more than run at once, each larger than its window. */
const BATCHES = ORGANISATION_BATCHES_AT_ONCE + 1;
const PER_BATCH = BATCH_WINDOW + 2;

/**
 * One organisation's batches take turns (D240), on the real dev server with the production worker
 * slots: organisation A sends three batches whose image host holds every request, so each analysis A
 * starts holds a local-activity slot of the analyses worker (its fetch) for as long as the host keeps
 * it. With each batch's window alone (D214) A started 24 and held all 20 slots, and organisation B's
 * photo, fetched in the same slots in arrival order, waited for A's host. In turns, A holds 16 and B's
 * photo completes meanwhile.
 */
describe("an organisation's batches take turns", () => {
  let api: TestApi;
  let workers: Awaited<ReturnType<typeof startTestWorkers>>;
  let a: TestOrg;
  let b: TestOrg;
  let photo: Buffer;
  /** A's image requests the host is holding, and the release of them all. */
  const held: ServerResponse[] = [];
  let releasing = false;
  const host = createServer((req, res) => {
    req.resume();
    const answer = () => res.writeHead(200, { 'content-type': 'image/png' }).end(photo);
    if (req.url?.startsWith('/a.png') && !releasing) held.push(res);
    else answer();
  });
  const release = () => {
    releasing = true;
    for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'image/png' }).end(photo);
  };
  const url = (path: string) => `http://127.0.0.1:${(host.address() as AddressInfo).port}${path}`;

  before(async () => {
    photo = await pngOfWidth(100);
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
    // The fetch's own time limit well past the test: A's held fetches must not fail and free their slots.
    api = await startTestApi({
      TASK_QUEUE_PREFIX: uniquePrefix('batch-turns'),
      ANALYSIS_RUNS: 1,
      IMAGE_FETCH_TIMEOUT_MS: 300_000,
    });
    // The slots a production worker has (ANALYSIS_MAX_CONCURRENT_ACTIVITIES), local activities included.
    workers = await startTestWorkers(
      api.runtime,
      new ScriptedRecognizer(() => [product({ brand: 'Heinz', description: 'Baked Beans 415g' })]),
      (x) => x,
      { activitySlots: api.runtime.config.ANALYSIS_MAX_CONCURRENT_ACTIVITIES },
    );
    a = await createTestOrg(api.runtime, { credits: 100, maxBatchSize: 50 });
    b = await createTestOrg(api.runtime, { credits: 10 });
  });
  after(async () => {
    release();
    await workers.stop();
    host.closeAllConnections();
    host.close();
    await api.close();
  });

  it(`holds ${CAP} of A's analyses in flight across its ${BATCHES} batches, and B's photo is not behind them`, async (t) => {
    assert.ok(
      BATCHES * BATCH_WINDOW > api.runtime.config.ANALYSIS_MAX_CONCURRENT_ACTIVITIES &&
        CAP < api.runtime.config.ANALYSIS_MAX_CONCURRENT_ACTIVITIES,
      'every batch window at once would fill the worker’s slots; the organisation’s turns do not',
    );
    const batchIds: string[] = [];
    const ids: string[] = [];
    for (let n = 0; n < BATCHES; n++) {
      const images = Array.from({ length: PER_BATCH }, (_, i) => ({ imageUrl: url(`/a.png?b=${n}&i=${i}`) }));
      const res = await api.request('POST', '/analyses/batch', { key: a.keys.write, body: { images } });
      assert.equal(res.status, 202, res.text);
      batchIds.push(res.body.data.batchId as string);
      ids.push(...(res.body.data.analyses as { id: string }[]).map((x) => x.id));
    }
    await waitFor(`${CAP} of A's fetches at the host`, async () => held.length >= CAP, 120_000);

    const res = await api.request('POST', '/analyses', { key: b.keys.write, body: { imageUrl: url('/b.png') } });
    assert.equal(res.status, 202, res.text);
    const bId = res.body.data.id as string;
    // Without turns B's fetch waits in the worker behind A's held ones, until A's host answers (it
    // does not, in this test): the wait ends in an error instead of B's completion.
    const bDone = await waitFor(
      `B's photo to complete while A's ${held.length} fetches are held`,
      async () => {
        const r = await api.request('GET', `/analyses/${bId}`, { key: b.keys.read });
        // A loaded machine may answer 503 while every pooled connection is taken for longer than
        // DATABASE_ACQUIRE_TIMEOUT_MS (a full run on a slow machine failed reading `data` here): asked again.
        if (r.status === 503) return false;
        assert.equal(r.status, 200, r.text);
        return r.body.data.status !== 'processing' && r.body.data;
      },
      45_000,
      250,
    );
    assert.equal(bDone.status, 'completed');
    t.diagnostic(`B completed with ${held.length} of A's fetches held`);
    assert.equal(held.length, CAP, `A had ${held.length} analyses fetching`);
    // The batches in their turn have their windows full; the one past the turns (whichever asked
    // last: the three start at once) has started none of its analyses.
    const { client } = api.runtime.temporal;
    const started = await Promise.all(
      batchIds.map(
        async (id) =>
          ((await client.workflow.getHandle(id).fetchHistory()).events ?? []).filter(
            (e) => e.startChildWorkflowExecutionInitiatedEventAttributes,
          ).length,
      ),
    );
    assert.deepEqual(
      [...started].sort((x, y) => x - y),
      [0, ...Array.from({ length: ORGANISATION_BATCHES_AT_ONCE }, () => BATCH_WINDOW)],
    );
    const waited = batchIds[started.indexOf(0)]!;

    release();
    for (const batchId of batchIds) {
      const batch = await batchCompleted(api, batchId, a.keys.read);
      assert.equal(batch.completed, PER_BATCH);
    }
    // From Temporal's own start and close times: never more than CAP of A's analyses open at once.
    for (const batchId of batchIds) await client.workflow.getHandle(batchId).result();
    const described = await Promise.all(ids.map((id) => client.workflow.getHandle(id).describe()));
    const points: [number, number][] = described.flatMap((d) => [
      [d.startTime.getTime(), +1] as [number, number],
      [d.closeTime!.getTime(), -1] as [number, number],
    ]);
    points.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    let open = 0;
    let most = 0;
    for (const [, d] of points) most = Math.max(most, (open += d));
    assert.ok(most <= CAP, `${most} of A's analyses were open at once (at most ${CAP})`);

    // How test/fixtures/histories/batch-turns-*.json were recorded (README there): the batch that
    // waited for its turn, and A's line once it has ended (a minute after its last batch).
    await recordHistory(client, waited, process.env.RECORD_BATCH_TURNS_HISTORY);
    await recordHistory(client, batchTurnsWorkflowId(a.id), process.env.RECORD_BATCH_LINE_HISTORY);
  });
});
