import assert from 'node:assert/strict';
import { RequestContext } from '@mikro-orm/core';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../../src/db/sql.js';
import { metrics } from '../../../src/lib/metrics.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../../helpers/image-host.js';
import { product, ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { describeWhenStarted, forgetKilledWorker, waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';
import { spawnWorker, stopProcess, workerPolling } from '../../helpers/worker-processes.js';
import { taskQueues } from '../../../src/temporal/contracts/task-queues.js';

type Workers = Awaited<ReturnType<typeof startTestWorkers>>;

/** What a client reads of an analysis' products, without what differs between two analyses. */
function productsOf(body: any) {
  return (body.data.products as Record<string, unknown>[]).map(
    ({ id: _id, analysisId: _a, createdAt: _c, ...rest }) => rest,
  );
}

/** The local-activity markers a workflow's history recorded for one activity type. */
async function markers(api: TestApi, workflowId: string, activityType: string): Promise<number> {
  const { events } = await api.runtime.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  return (events ?? []).filter((e) => {
    const details = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    return details && Buffer.from(details).toString().includes(`"activity_type":"${activityType}"`);
  }).length;
}

describe('issue 39: a photo is read once per run, the products written once when finalize is retried', () => {
  let api: TestApi;
  let workers: Workers;
  let host: ImageHost;
  let recognizer: ScriptedRecognizer;
  /** Set to fail the next pass 1 once (a retryable error): the tests here run one analysis at a time. */
  let losePass1 = false;
  /** Set to collect the photo each pass is given. */
  let given: Buffer[] | null = null;
  const db = () => api.runtime.orm.em.fork();

  before(async () => {
    // Three passes per analysis: each reads the photo, and must read it from what the fetch kept.
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('read-once'), ANALYSIS_RUNS: 3 });
    host = await startImageHost({
      '/once.png': { body: await pngOfWidth(120) },
      '/handed.png': { body: await pngOfWidth(130) },
      '/control.png': { body: await pngOfWidth(120) },
      '/interrupted.png': { body: await pngOfWidth(120) },
      '/beside.png': { body: await pngOfWidth(140) },
    });
    recognizer = new ScriptedRecognizer(({ runIndex, image }) => {
      given?.push(Buffer.from(image));
      if (runIndex === 1 && losePass1) {
        losePass1 = false;
        throw new Error('pass 1 lost (test)');
      }
      return [
        product({ brand: 'Heinz', description: 'Baked Beans 415g', units: 3, price: 0.95, currency: 'GBP' }),
        product({ brand: 'Napolina', description: 'Chopped Tomatoes', units: 2, price: 0.6, currency: 'GBP' }),
      ];
    });
    workers = await startTestWorkers(api.runtime, recognizer);
  });
  after(async () => {
    await workers?.stop();
    await host?.close();
    await api?.close();
  });

  async function submit(org: TestOrg, path: string): Promise<string> {
    const res = await api.request('POST', '/analyses', { key: org.keys.write, body: { imageUrl: host.url(path) } });
    assert.equal(res.status, 202, res.text);
    return res.body.data.id as string;
  }
  /**
   * A trigger run before each write of this organisation's photos into image_blobs (`body`, plpgsql,
   * `fn` the function's name); resolves to its removal.
   */
  async function onPhotoWrites(org: TestOrg, fn: string, body: string): Promise<() => Promise<void>> {
    await sql(
      db(),
      `create function ${fn}() returns trigger language plpgsql as $$
       begin
         if exists (select 1 from analyses where id = new.analysis_id and organisation_id = '${org.id}') then
           ${body}
         end if;
         return new;
       end $$;
       create trigger ${fn} before insert or update on image_blobs for each row execute function ${fn}();`,
    );
    return async () => void (await sql(db(), `drop trigger ${fn} on image_blobs; drop function ${fn}();`));
  }
  async function finished(id: string) {
    await describeWhenStarted(api.runtime.temporal.client, id, 30_000);
    return api.runtime.temporal.client.workflow.getHandle(id).result();
  }

  it(
    'one fetch from the image host for an analysis of three passes, one of them retried',
    { timeout: 180_000 },
    async () => {
      const org = await createTestOrg(api.runtime, { credits: 5 });
      const before = recognizer.calls;
      losePass1 = true;
      const id = await submit(org, '/once.png');
      const result = await finished(id);
      assert.equal(result.status, 'completed');
      // Three passes and the retry of the lost one all ran, and the preview was made after the result:
      // none of them went back to the image host.
      assert.equal(recognizer.calls - before, 4);
      assert.equal(losePass1, false, 'pass 1 failed once and was retried');
      assert.equal(host.hits.get('/once.png'), 1);
      const [preview] = await sql<{ n: number }>(
        db(),
        `select count(*)::int as n from analysis_images where analysis_id = ?`,
        [id],
      );
      assert.equal(preview!.n, 1);
    },
  );

  it(
    'the passes take the photo from the fetch that holds it: none reads it back from the database',
    { timeout: 180_000 },
    async () => {
      const org = await createTestOrg(api.runtime, { credits: 5 });
      // What the fetch stores for this organisation is made not the photo (a trigger replaces the bytes
      // as they are written, counting the rows it replaced): a pass that read the stored copy back
      // would be given those bytes, not the photo the host served.
      const tag = org.id.replace(/[^a-z0-9]/gi, '_').toLowerCase();
      await sql(db(), `create sequence replaced_${tag}`);
      const drop = await onPhotoWrites(
        org,
        `replace_${tag}`,
        `perform nextval('replaced_${tag}');
         new.bytes := convert_to('not the photo', 'UTF8');`,
      );
      try {
        const readsBefore = (await metrics.storedPhotoReads.get()).values[0]?.value ?? 0;
        given = [];
        const id = await submit(org, '/handed.png');
        const result = await finished(id);
        assert.equal(result.status, 'completed');
        const [{ replaced }] = (await sql<{ replaced: string }>(
          db(),
          `select case when is_called then last_value else 0 end as replaced from replaced_${tag}`,
        )) as [{ replaced: string }];
        assert.equal(Number(replaced), 1, 'the fetch stored the photo once (as the trigger made it)');
        assert.equal(given.length, 3, 'three passes');
        const served = await pngOfWidth(130);
        for (const image of given) assert.ok(image.equals(served), 'each pass was given the photo the host served');
        assert.equal((await metrics.storedPhotoReads.get()).values[0]?.value ?? 0, readsBefore, 'no pass read it back');
        assert.equal(host.hits.get('/handed.png'), 1);
        // The console's preview, made after the result, is made from the photo the fetch kept too
        // (D283): from the stored copy ('not the photo', which does not decode) there would be none.
        const previews = await waitFor('the preview', async () => {
          const rows = await sql<{ width: number }>(db(), `select width from analysis_images where analysis_id = ?`, [
            id,
          ]);
          const [{ left }] = (await sql<{ left: number }>(
            db(),
            `select count(*)::int as left from image_blobs where analysis_id = ?`,
            [id],
          )) as [{ left: number }];
          return left === 0 && rows;
        });
        assert.deepEqual(previews, [{ width: 130 }], 'a preview of the served photo');
      } finally {
        given = null;
        await drop();
        await sql(db(), `drop sequence replaced_${tag}`);
      }
    },
  );

  it(
    "the photo's write goes on beside recognition: the passes and the result do not wait for it (D335)",
    { timeout: 180_000 },
    async () => {
      const org = await createTestOrg(api.runtime, { credits: 5 });
      // This organisation's photo writes wait on an advisory lock the test holds, on a connection of
      // its own: a fetch that waited for its write would hold every pass back until it is let go.
      const tag = org.id.replace(/[^a-z0-9]/gi, '_').toLowerCase();
      const holder = api.runtime.orm.em.fork().getConnection();
      const held = await holder.getKnex().client.acquireConnection();
      await held.query('select pg_advisory_lock(335335)');
      const drop = await onPhotoWrites(org, `hold_${tag}`, `perform pg_advisory_xact_lock_shared(335335);`);
      let released = false;
      const release = async () => {
        if (released) return;
        released = true;
        await held.query('select pg_advisory_unlock(335335)');
      };
      try {
        given = [];
        const id = await submit(org, '/beside.png');
        await waitFor('the three passes, the write still held', async () => given!.length === 3);
        // The client's result is out while the photo is still not stored.
        const status = await waitFor('the analysis completed', async () => {
          const res = await api.request('GET', `/analyses/${id}`, { key: org.keys.read });
          return res.body.data.status === 'completed' && res.body.data.status;
        });
        assert.equal(status, 'completed');
        const [stored] = await sql<{ n: number }>(
          db(),
          `select count(*)::int as n from image_blobs where analysis_id = ?`,
          [id],
        );
        assert.equal(stored!.n, 0, 'the write is still held');
        await release();
        assert.equal((await finished(id)).status, 'completed');
        // The preview, after the result, waited for the write (its row is what it replaces).
        const previews = await waitFor('the preview', async () => {
          const rows = await sql<{ width: number }>(db(), `select width from analysis_images where analysis_id = ?`, [
            id,
          ]);
          return rows.length > 0 && rows;
        });
        assert.deepEqual(previews, [{ width: 140 }]);
        assert.equal(host.hits.get('/beside.png'), 1);
      } finally {
        given = null;
        await release();
        await holder.getKnex().client.releaseConnection(held);
        await drop();
      }
    },
  );

  it(
    'finalize failing after it wrote (products, status) is retried: products once, the same result',
    { timeout: 180_000 },
    async () => {
      const org = await createTestOrg(api.runtime, { credits: 5 });
      // The same photo analysed without interruption: what the interrupted one must end with.
      const control = await submit(org, '/control.png');
      assert.equal((await finished(control)).status, 'completed');
      const expected = await api.request('GET', `/analyses/${control}`, { key: org.keys.read });

      // A real failure inside finalize's transaction, after its products and status are written: the
      // first insert of this organisation's analysis.completed event raises (once: a sequence counts
      // attempts and is not rolled back), noting how many products the failed attempt had written.
      const tag = org.id.replace(/[^a-z0-9]/gi, '_').toLowerCase();
      await sql(
        db(),
        `create sequence attempts_${tag};
       create sequence written_${tag} minvalue 0 start 0;
       create function interrupt_${tag}() returns trigger language plpgsql as $$
       begin
         if nextval('attempts_${tag}') = 1 then
           perform setval('written_${tag}', (select count(*) from products where analysis_id = new.analysis_id), true);
           raise exception 'finalize interrupted after writing (test)' using errcode = '40001';
         end if;
         return new;
       end $$;
       create trigger interrupt_${tag} after insert on events for each row
         when (new.organisation_id = '${org.id}' and new.type = 'analysis.completed')
         execute function interrupt_${tag}();`,
      );
      try {
        const id = await submit(org, '/interrupted.png');
        const result = await finished(id);
        const [{ attempts, written }] = (await sql<{ attempts: string; written: string }>(
          db(),
          `select (select last_value from attempts_${tag}) as attempts, (select last_value from written_${tag}) as written`,
        )) as [{ attempts: string; written: string }];
        assert.equal(Number(attempts), 2, 'finalize ran twice: interrupted, then retried');
        assert.equal(Number(written), 2, 'the interrupted attempt had written both products');

        assert.deepEqual(result, { analysisId: id, status: 'completed', productCount: 2, errorCode: null });
        const [rows] = await sql<{ n: number }>(db(), `select count(*)::int as n from products where analysis_id = ?`, [
          id,
        ]);
        assert.equal(rows!.n, 2);
        const [events] = await sql<{ n: number }>(db(), `select count(*)::int as n from events where analysis_id = ?`, [
          id,
        ]);
        assert.equal(events!.n, 1);
        const got = await api.request('GET', `/analyses/${id}`, { key: org.keys.read });
        assert.deepEqual(productsOf(got.body), productsOf(expected.body));
        for (const field of ['status', 'productCount', 'totalUnits', 'totalValue', 'completedRuns', 'failedRuns'])
          assert.deepEqual(got.body.data[field], expected.body.data[field], field);
      } finally {
        await sql(
          db(),
          `drop trigger interrupt_${tag} on events; drop function interrupt_${tag}();
         drop sequence attempts_${tag}; drop sequence written_${tag};`,
        );
      }
    },
  );
});

describe('issue 39: finalize whose commit landed but whose worker died before reporting it', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  const prefix = uniquePrefix('finalize-kill');
  const children: ChildProcess[] = [];

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: prefix, ANALYSIS_RUNS: 1 });
    org = await createTestOrg(api.runtime, { credits: 5 });
    host = await startImageHost({ '/beans.png': { body: await pngOfWidth(90) } });
  });
  after(async () => {
    for (const c of children) await stopProcess(c);
    await host?.close();
    await api?.close();
  });

  it(
    'the retry on a new worker finds the analysis final: no second write, the same outcome',
    { timeout: 180_000 },
    async () => {
      const db = () => api.runtime.orm.em.fork();
      const tag = org.id.replace(/[^a-z0-9]/gi, '_').toLowerCase();
      // Finalize's COMMIT is held (a deferred trigger sleeping) long enough to kill its worker; the
      // server backend then completes the commit on its own: written, but never reported.
      await sql(
        db(),
        `create function hold_${tag}() returns trigger language plpgsql as $$
       begin perform pg_sleep(4); return null; end $$;
       create constraint trigger hold_${tag} after update on analyses deferrable initially deferred for each row
         when (new.organisation_id = '${org.id}' and new.status = 'completed') execute function hold_${tag}();`,
      );
      try {
        const first = spawnWorker(prefix, { env: { SLOW_RECOGNIZER_MS: '100' } });
        children.push(first.child);
        const res = await api.request('POST', '/analyses', {
          key: org.keys.write,
          body: { imageUrl: host.url('/beans.png') },
        });
        assert.equal(res.status, 202);
        const id = res.body.data.id as string;
        await waitFor(
          "finalize's commit held by the trigger",
          async () =>
            (
              await sql<{ n: number }>(
                db(),
                `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'`,
              )
            )[0]!.n > 0,
          120_000,
          50,
        );
        await stopProcess(first.child);
        const status = await waitFor(
          'the orphaned commit to land',
          async () => {
            const [row] = await sql<{ status: string }>(db(), `select status from analyses where id = ?`, [id]);
            return row?.status === 'completed' && row.status;
          },
          30_000,
          100,
        );
        assert.equal(status, 'completed');
        assert.equal(await markers(api, id, 'finalizeAnalysis'), 0, 'the killed worker never reported finalize');

        await forgetKilledWorker(api.runtime.temporal.client, api.runtime.config.TEMPORAL_NAMESPACE, [id]);
        const second = spawnWorker(prefix, { env: { SLOW_RECOGNIZER_MS: '100' } });
        children.push(second.child);
        await workerPolling(
          api.runtime.temporal.client,
          api.runtime.config.TEMPORAL_NAMESPACE,
          taskQueues(prefix).analyses,
        );
        const result = await api.runtime.temporal.client.workflow.getHandle(id).result();
        assert.deepEqual(result, { analysisId: id, status: 'completed', productCount: 1, errorCode: null });
        assert.equal(await markers(api, id, 'finalizeAnalysis'), 1, 'finalize ran again, on the second worker');
        const [products] = await sql<{ n: number }>(
          db(),
          `select count(*)::int as n from products where analysis_id = ?`,
          [id],
        );
        assert.equal(products!.n, 1);
        const [events] = await sql<{ n: number }>(db(), `select count(*)::int as n from events where analysis_id = ?`, [
          id,
        ]);
        assert.equal(events!.n, 1);
        const got = await api.request('GET', `/analyses/${id}`, { key: org.keys.read });
        assert.equal(got.body.data.status, 'completed');
        assert.equal(got.body.data.products.length, 1);
        assert.equal(got.body.data.products[0].units, 3);
        await stopProcess(second.child, 'SIGTERM');
      } finally {
        await sql(db(), `drop trigger hold_${tag} on analyses; drop function hold_${tag}();`);
      }
    },
  );
});

describe('issue 39: a pass that finds no stored copy of the photo fetches it again (D335)', () => {
  let api: TestApi;
  let host: ImageHost;
  const served = pngOfWidth(150);

  before(async () => {
    // No worker polls this prefix: the analyses stay processing, and the passes here are the service's
    // own, in a process that never fetched their photos (as a worker that took over from one killed
    // before its write beside recognition committed).
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('refetch'), ANALYSIS_RUNS: 3 });
    host = await startImageHost({
      '/again.png': { body: await served },
      '/gone.png': { status: 404, body: 'gone' },
      '/held.png': { body: await served },
    });
  });
  after(async () => {
    await host?.close();
    await api?.close();
  });

  /** The 202 does not wait for the workflow's start (decisions.md): end it once it exists. */
  const endWorkflow = async (id: string) => {
    await describeWhenStarted(api.runtime.temporal.client, id, 30_000);
    await api.runtime.temporal.client.workflow.getHandle(id).terminate('test done');
  };
  const refetch = { maxBytes: 10_000_000, timeoutMs: 10_000, allowPrivate: true, decodeInFull: true };
  /** One recognition pass as the activity runs it: in a context of its own (activities/index.ts). */
  const pass = (id: string, runIndex: number, recognizer: ScriptedRecognizer) =>
    RequestContext.create(api.runtime.orm.em, () =>
      api.runtime.services.analysisProcessing.recognize(id, runIndex, recognizer, { refetch }),
    );

  it('once for the passes of a process, and stored as the fetch stores it', { timeout: 120_000 }, async () => {
    const org = await createTestOrg(api.runtime, { credits: 5 });
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/again.png') },
    });
    assert.equal(res.status, 202, res.text);
    const id = res.body.data.id as string;
    const given: Buffer[] = [];
    const recognizer = new ScriptedRecognizer(({ image }) => {
      given.push(Buffer.from(image));
      return [product({ brand: 'Heinz', description: 'Baked Beans 415g', units: 1, price: 0.95, currency: 'GBP' })];
    });
    const passes = await Promise.all([0, 1, 2].map((runIndex) => pass(id, runIndex, recognizer)));
    assert.deepEqual(passes, [{ productCount: 1 }, { productCount: 1 }, { productCount: 1 }]);
    assert.equal(host.hits.get('/again.png'), 1, 'one fetch for the three passes');
    const photo = await served;
    for (const image of given) assert.ok(image.equals(photo), 'each pass was given the photo the host served');
    const stored = await waitFor('the stored copy', async () => {
      const rows = await sql<{ width: number }>(
        api.runtime.orm.em.fork(),
        `select width from image_blobs where analysis_id = ?`,
        [id],
      );
      return rows.length > 0 && rows;
    });
    assert.deepEqual(stored, [{ width: 150 }]);
    await endWorkflow(id);
  });

  it(
    'a write going on elsewhere (its lock held) is waited for and read, not fetched again',
    { timeout: 120_000 },
    async () => {
      const org = await createTestOrg(api.runtime, { credits: 5 });
      const res = await api.request('POST', '/analyses', {
        key: org.keys.write,
        body: { imageUrl: host.url('/held.png') },
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.data.id as string;
      // Another worker's write beside recognition, as it stands between the fetch's answer and its commit.
      const knex = api.runtime.orm.em.getConnection().getKnex();
      const writer = await knex.client.acquireConnection();
      try {
        await writer.query('begin');
        await writer.query('select pg_advisory_xact_lock(335, hashtext($1))', [id]);
        const given: Buffer[] = [];
        const recognizer = new ScriptedRecognizer(({ image }) => {
          given.push(Buffer.from(image));
          return [];
        });
        const passing = pass(id, 0, recognizer);
        await waitFor('the pass waiting on the write', async () => {
          const { rows } = await writer.query(
            `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`,
          );
          return rows[0].n > 0;
        });
        const photo = await served;
        await writer.query(
          `insert into image_blobs (analysis_id, content_type, width, height, bytes, created_at) values ($1, 'image/png', 150, 15, $2, now())`,
          [id, photo],
        );
        await writer.query('commit');
        assert.deepEqual(await passing, { productCount: 0 });
        assert.equal(given.length, 1);
        assert.ok(given[0]!.equals(photo), 'the pass read the copy written');
        assert.equal(host.hits.get('/held.png') ?? 0, 0, 'not fetched again');
      } finally {
        await knex.client.releaseConnection(writer);
      }
      await endWorkflow(id);
    },
  );

  it("with the fetch's own refusal when the photo is gone", { timeout: 120_000 }, async () => {
    const org = await createTestOrg(api.runtime, { credits: 5 });
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/gone.png') },
    });
    assert.equal(res.status, 202, res.text);
    const id = res.body.data.id as string;
    const recognizer = new ScriptedRecognizer(() => []);
    await assert.rejects(pass(id, 0, recognizer), (err: Error & { code?: string }) => err.code === 'IMAGE_HTTP_ERROR');
    assert.equal(recognizer.calls, 0);
    await endWorkflow(id);
  });
});

describe("issue 39: the photo's write waits for the worker's first pass to begin (D339)", () => {
  let api: TestApi;
  let workers: Workers;
  let host: ImageHost;
  const db = () => api.runtime.orm.em.fork();

  before(async () => {
    // Held for as long as no pass begins: recognition's worker polls only once the test says so.
    api = await startTestApi({
      TASK_QUEUE_PREFIX: uniquePrefix('write-waits'),
      PHOTO_WRITE_WAITS_FOR_PASS_MS: 600_000,
    });
    host = await startImageHost({ '/waits.png': { body: await pngOfWidth(150) } });
    const recognizer = new ScriptedRecognizer(() => [
      product({ brand: 'Heinz', description: 'Baked Beans 415g', units: 3, price: 0.95, currency: 'GBP' }),
    ]);
    workers = await startTestWorkers(api.runtime, recognizer, undefined, { recognitionLater: true });
  });
  after(async () => {
    await workers?.stop();
    await host?.close();
    await api?.close();
  });

  it(
    'fetched, its lock held and nothing written while no pass has begun; written once one does',
    { timeout: 120_000 },
    async () => {
      const org = await createTestOrg(api.runtime, { credits: 5 });
      const res = await api.request('POST', '/analyses', {
        key: org.keys.write,
        body: { imageUrl: host.url('/waits.png') },
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.data.id as string;
      const handle = api.runtime.temporal.client.workflow.getHandle(id);
      await describeWhenStarted(api.runtime.temporal.client, id, 30_000);
      await waitFor('recognition scheduled', async () => {
        const { events } = await handle.fetchHistory();
        return (events ?? []).some(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'recognizeImage',
        );
      });
      // Time for a write begun with the fetch to land (a few milliseconds for this photo): held, it has not.
      await new Promise((r) => setTimeout(r, 1_000));
      const state = async () =>
        (
          await sql<{ stored: number; locked: number }>(
            db(),
            `select (select count(*)::int from image_blobs where analysis_id = ?) as stored,
                  (select count(*)::int from pg_locks where locktype = 'advisory' and classid = 335
                      and objid = hashtext(?)::oid and granted) as locked`,
            [id, id],
          )
        )[0]!;
      assert.deepEqual(await state(), { stored: 0, locked: 1 }, 'the write waits, its lock held');
      assert.equal(host.hits.get('/waits.png'), 1);

      workers.startRecognition();
      assert.equal((await handle.result()).status, 'completed');
      // Written once the pass began, then replaced by the preview after the result.
      const previews = await waitFor('the preview', async () => {
        const rows = await sql<{ width: number }>(db(), `select width from analysis_images where analysis_id = ?`, [
          id,
        ]);
        return rows.length > 0 && rows;
      });
      assert.deepEqual(previews, [{ width: 150 }]);
      assert.equal(host.hits.get('/waits.png'), 1, 'fetched once');
    },
  );
});
