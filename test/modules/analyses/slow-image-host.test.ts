import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth } from '../../helpers/image-host.js';
import { product, ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

/**
 * An image host on loopback that never sends a whole photo: `/trickle` a byte every 200 ms of a body
 * it says is 100 kB, `/stall` 100 bytes and then nothing, both without end; `/photo` an ordinary PNG.
 * It counts requests per path and knows which of its answers are still open.
 */
async function slowImageHost(photo: Buffer) {
  const requests = new Map<string, number>();
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.set(path, (requests.get(path) ?? 0) + 1);
    if (path === '/photo') {
      res.writeHead(200, { 'content-type': 'image/png' }).end(photo);
      return;
    }
    open.add(res);
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': '100000' });
    res.write(photo.subarray(0, path === '/stall' ? 100 : 8));
    const trickle = path === '/trickle' ? setInterval(() => res.write(Buffer.alloc(1)), 200) : undefined;
    res.on('close', () => {
      clearInterval(trickle);
      open.delete(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    requests,
    open,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('an image host that trickles or never finishes its body', () => {
  // Long enough that the ordinary photo below is surely done inside it, even on a loaded machine
  // (it takes a second or two): the test shows ordering, not speed.
  const FETCH_MS = 25_000;
  let api: TestApi;
  let org: TestOrg;
  let host: Awaited<ReturnType<typeof slowImageHost>>;
  let stopWorkers: () => Promise<void>;
  const recognised: string[] = [];

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('slow-image'), IMAGE_FETCH_TIMEOUT_MS: FETCH_MS });
    stopWorkers = (
      await startTestWorkers(
        api.runtime,
        new ScriptedRecognizer((input) => {
          recognised.push(String(input.width));
          return [product({ brand: 'Heinz', description: 'Beans', units: 1, price: 1 })];
        }),
      )
    ).stop;
    org = await createTestOrg(api.runtime, { credits: 10 });
    host = await slowImageHost(await pngOfWidth(90));
  });
  after(async () => {
    await stopWorkers();
    await host.close();
    await api.close();
  });

  const submit = async (path: string) => {
    const res = await api.request('POST', '/analyses', { key: org.keys.write, body: { imageUrl: host.url(path) } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    return res.body.data.id as string;
  };
  const finished = (id: string) =>
    waitFor(
      `analysis ${id} to finish`,
      async () => {
        const r = await api.request('GET', `/analyses/${id}`, { key: org.keys.read });
        return r.body.data.status !== 'processing' && r.body.data;
      },
      120_000,
    );

  it('fails its fetch once IMAGE_FETCH_TIMEOUT_MS is spent, retries included, and holds nothing meanwhile', async () => {
    const trickling = await submit('/trickle');
    const stalled = await submit('/stall');
    await waitFor('both slow fetches to be under way', async () => host.open.size === 2, 30_000, 20);
    // An ordinary photo sent after them is read and done while both are still being sent.
    const ordinary = await finished(await submit('/photo'));
    assert.equal(ordinary.status, 'completed');
    assert.equal(host.open.size, 2, 'the slow answers were still open when the ordinary photo was done');

    for (const [path, id] of [
      ['/trickle', trickling],
      ['/stall', stalled],
    ] as const) {
      const done = await finished(id);
      assert.equal(done.status, 'failed', path);
      assert.equal(done.error.code, 'IMAGE_UNREACHABLE', path);
      assert.equal(done.error.message, 'The image host did not answer in time.', path);
      // One request: the retries of a fetch share its time, and the first spent all of it (each
      // attempt used to get the whole IMAGE_FETCH_TIMEOUT_MS again, four in all).
      assert.equal(host.requests.get(path), 1, `${path}: requests made`);
    }
    // The fetches let go of their connections; recognition saw only the ordinary photo.
    await waitFor('the slow answers to be closed by the fetcher', async () => host.open.size === 0, 10_000, 20);
    assert.deepEqual(recognised, ['90']);
  });
});
