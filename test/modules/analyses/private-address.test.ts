import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../../helpers/image-host.js';
import { ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

describe('image fetches with the production address guard on', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let stopWorkers: () => Promise<void>;
  const recognizer = new ScriptedRecognizer(() => []);

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('guard'), ALLOW_PRIVATE_NETWORK_FETCH: false });
    stopWorkers = (await startTestWorkers(api.runtime, recognizer)).stop;
    org = await createTestOrg(api.runtime, { credits: 5 });
    host = await startImageHost({ '/shelf.png': { body: await pngOfWidth(64) } });
  });
  after(async () => {
    await stopWorkers();
    await host.close();
    await api.close();
  });

  it('fails a URL that resolves to a private address with IMAGE_ADDRESS_BLOCKED, without fetching it, and refunds', async () => {
    const url = host.url('/shelf.png').replace('127.0.0.1', 'localhost');
    const res = await api.request('POST', '/analyses', { key: org.keys.write, body: { imageUrl: url } });
    assert.equal(res.status, 202);
    const a = await waitFor('the analysis to fail', async () => {
      const r = await api.request('GET', `/analyses/${res.body.data.id}`, { key: org.keys.read });
      return r.body.data.status !== 'processing' && r.body.data;
    });
    assert.equal(a.status, 'failed');
    assert.equal(a.error.code, 'IMAGE_ADDRESS_BLOCKED');
    // The public message names no internal address (anyone could map our network with it).
    assert.doesNotMatch(a.error.message, /127\.0\.0\.1|::1|localhost|\d+\.\d+\.\d+\.\d+/);
    assert.equal(host.hits.get('/shelf.png') ?? 0, 0, 'the guard refused before connecting');
    assert.equal(recognizer.calls, 0);
    assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, 5);
  });

  it('fails special IPv6 literals ([fec0::1], [::7f00:1]) with IMAGE_ADDRESS_BLOCKED at once, not after a connection timeout', async () => {
    // Before issue 36 these went out: fec0::1 (site-local) left by the default route and timed out.
    const started = Date.now();
    const submitted = await Promise.all(
      ['http://[fec0::1]/shelf.png', 'http://[::7f00:1]/shelf.png'].map(async (imageUrl) => {
        const res = await api.request('POST', '/analyses', { key: org.keys.write, body: { imageUrl } });
        assert.equal(res.status, 202);
        return res.body.data.id as string;
      }),
    );
    for (const id of submitted) {
      const a = await waitFor('the analysis to fail', async () => {
        const r = await api.request('GET', `/analyses/${id}`, { key: org.keys.read });
        return r.body.data.status !== 'processing' && r.body.data;
      });
      assert.equal(a.status, 'failed');
      assert.equal(a.error.code, 'IMAGE_ADDRESS_BLOCKED', `${a.imageUrl}: ${a.error.code} ${a.error.message}`);
    }
    assert.ok(
      Date.now() - started < api.runtime.config.IMAGE_FETCH_TIMEOUT_MS,
      'refused before any connection, so well within one fetch timeout',
    );
    assert.equal(recognizer.calls, 0);
  });
});
