import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { describeWhenStarted, waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

/** Words and shapes that would tell an outsider about our network or resolver. */
const INSIDE = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|getaddrinfo|\d+\.\d+\.\d+\.\d+|:\d{1,5}\b|connect /;

describe('failed image fetches say what the client can act on, and nothing about the inside', () => {
  let api: TestApi;
  let org: TestOrg;
  let stopWorkers: () => Promise<void>;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('image-errors') });
    stopWorkers = (await startTestWorkers(api.runtime, new ScriptedRecognizer(() => []))).stop;
    org = await createTestOrg(api.runtime, { credits: 10 });
  });
  after(async () => {
    await stopWorkers();
    await api.close();
  });

  async function failed(imageUrl: string) {
    const res = await api.request('POST', '/analyses', { key: org.keys.write, body: { imageUrl } });
    assert.equal(res.status, 202);
    return waitFor(
      'the analysis to fail',
      async () => {
        const r = await api.request('GET', `/analyses/${res.body.data.id}`, { key: org.keys.read });
        return r.body.data.status !== 'processing' && r.body.data;
      },
      120_000,
    );
  }

  it('a closed port and an unresolvable host: IMAGE_UNREACHABLE with a message free of addresses, ports and resolver text', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));

    // Both at once: each waits out the fetch's retries (some 7 s).
    const [refused, unresolvable] = await Promise.all([
      failed(`http://127.0.0.1:${port}/shelf.png`),
      failed('http://no-such-host.invalid/shelf.png'),
    ]);
    assert.equal(refused.status, 'failed');
    assert.equal(refused.error.code, 'IMAGE_UNREACHABLE');
    assert.doesNotMatch(refused.error.message, INSIDE);
    assert.ok(!refused.error.message.includes(String(port)));

    assert.equal(unresolvable.status, 'failed');
    assert.equal(unresolvable.error.code, 'IMAGE_UNREACHABLE');
    assert.doesNotMatch(unresolvable.error.message, INSIDE);
    assert.match(unresolvable.error.message, /resolved/);
  });

  it("the Temporal memo keeps the image's host only, never a signed URL's path or token", async () => {
    const imageUrl = 'https://user:pw@images.example.com/shelves/aisle-4.jpg?X-Amz-Signature=s3cr3t&token=abc123';
    const res = await api.request('POST', '/analyses', { key: org.keys.write, body: { imageUrl } });
    const described = await describeWhenStarted(api.runtime.temporal.client, res.body.data.id);
    const memo = JSON.stringify(described.memo);
    assert.equal(described.memo?.imageHost, 'images.example.com');
    for (const secret of ['s3cr3t', 'abc123', 'aisle-4', 'pw', 'X-Amz'])
      assert.ok(!memo.includes(secret), `memo leaks ${secret}: ${memo}`);
  });
});
