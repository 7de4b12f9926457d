import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../../helpers/image-host.js';
import { ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

/**
 * A processing analysis' place in line (issue 40, decisions.md D211): GET /analyses/{id} counts the
 * organisation's earlier analyses still processing in the same lane, with recognition held (its
 * worker not polling) so nothing finishes while the places are read.
 */
describe('the place in line of a processing analysis (real dev server, recognition held)', () => {
  let api: TestApi;
  let host: ImageHost;
  let workers: Awaited<ReturnType<typeof startTestWorkers>>;
  let a: TestOrg;
  let b: TestOrg;

  before(async () => {
    host = await startImageHost({ '/shelf.png': { body: await pngOfWidth(100) } });
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('qpos'), ANALYSIS_RUNS: 1 });
    workers = await startTestWorkers(api.runtime, new ScriptedRecognizer(() => []), undefined, {
      recognitionLater: true,
    });
    a = await createTestOrg(api.runtime, { credits: 20 });
    b = await createTestOrg(api.runtime, { credits: 20 });
  });
  after(async () => {
    await workers?.stop();
    await api?.close();
    await host?.close();
  });

  const image = () => ({ imageUrl: host.url('/shelf.png') });

  async function submit(o: TestOrg): Promise<string> {
    const res = await api.request('POST', '/analyses', { key: o.keys.write, body: image() });
    assert.equal(res.status, 202, res.text);
    return res.body.data.id as string;
  }

  async function detail(o: TestOrg, id: string) {
    const res = await api.request('GET', `/analyses/${id}`, { key: o.keys.read });
    assert.equal(res.status, 200, res.text);
    return res.body.data as { status: string; queue: { ahead: number } | null };
  }

  it('counts the earlier processing analyses of its organisation and lane, and none once it has finished', async () => {
    // One after another, so their ids (creation order) are their order in line.
    const singles = [await submit(a), await submit(a), await submit(a)];
    const batch = await api.request('POST', '/analyses/batch', {
      key: a.keys.write,
      body: { images: [image(), image()] },
    });
    assert.equal(batch.status, 202, batch.text);
    const members = (batch.body.data.analyses as { id: string }[]).map((m) => m.id);
    const other = await submit(b);

    // Single submissions: the batch submitted after them and B's photo are not ahead of them.
    assert.deepEqual(await Promise.all(singles.map(async (id) => (await detail(a, id)).queue)), [
      { ahead: 0 },
      { ahead: 1 },
      { ahead: 2 },
    ]);
    // A batch's images are in their own lane: A's three single photos are not ahead of them.
    assert.deepEqual(await Promise.all(members.map(async (id) => (await detail(a, id)).queue)), [
      { ahead: 0 },
      { ahead: 1 },
    ]);
    // Another organisation's line is its own.
    assert.deepEqual((await detail(b, other)).queue, { ahead: 0 });

    workers.startRecognition();
    const all = [...singles, ...members];
    await waitFor(
      'every analysis to complete',
      async () => (await Promise.all(all.map((id) => detail(a, id)))).every((d) => d.status === 'completed'),
      120_000,
      500,
    );
    for (const id of all) assert.equal((await detail(a, id)).queue, null, `${id} has finished: no place in line`);
  });
});
