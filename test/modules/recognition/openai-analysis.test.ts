import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../../src/db/sql.js';
import { OpenAiRecognizer } from '../../../src/modules/recognition/engines/openai-recognizer.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../../helpers/image-host.js';
import { answer, API_KEY, startChatApi } from '../../helpers/openai-chat-api.js';
import { product } from '../../helpers/scripted-recognizer.js';
import { waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

/**
 * The whole path with RECOGNIZER=openai: real workers, the real openai recognizer against a local
 * endpoint speaking the chat-completions protocol, whose model answers with values past the
 * products columns. The analysis must end (here: completed with bounded values), never stay processing.
 */
describe('an analysis through the openai recognizer with out-of-bounds model output', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let chat: Awaited<ReturnType<typeof startChatApi>>;
  let stopWorkers: () => Promise<void>;

  before(async () => {
    chat = await startChatApi(() => ({
      json: answer({
        products: [
          product({
            brand: `Brand ${'b'.repeat(294)}`,
            description: 'Sparkling water 500ml',
            units: 4e15,
            price: 1.99,
            currency: 'United States dollar',
            confidenceScore: 0.9,
          }),
        ],
      }),
    }));
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('openai-analysis') });
    const recognizer = new OpenAiRecognizer(
      { baseURL: chat.baseURL, apiKey: API_KEY, model: 'test-vision', timeoutMs: 10_000 },
      {},
    );
    stopWorkers = (await startTestWorkers(api.runtime, recognizer)).stop;
    org = await createTestOrg(api.runtime, { credits: 5 });
    host = await startImageHost({ '/shelf.png': { body: await pngOfWidth(48) } });
  });
  after(async () => {
    await stopWorkers();
    await host.close();
    await chat.close();
    await api.close();
  });

  it('a 300-character brand, a 20-character currency and a huge count: completed with bounded values, credit taken once', async () => {
    const before = await api.runtime.services.credits.balance(org.id);
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/shelf.png') },
    });
    assert.equal(res.status, 202);
    const id = res.body.data.id;
    const a = await waitFor('the analysis to end', async () => {
      const got = (await api.request('GET', `/analyses/${id}`, { key: org.keys.read })).body.data;
      return got.status !== 'processing' && got;
    });
    assert.equal(a.status, 'completed', JSON.stringify(a.error));
    assert.ok(chat.requests.length >= 1, 'the model was asked');
    assert.equal(a.products.length, 1);
    const [p] = a.products;
    assert.equal([...p.brand].length, 255);
    assert.ok(p.brand.startsWith('Brand bbb') && p.brand.endsWith('…'));
    assert.equal(p.currency, null, 'not an ISO 4217 code, and no catalogue entry to take one from');
    assert.equal(p.units, 1000);
    assert.equal(p.price, 1.99);
    assert.equal(a.totalUnits, 1000);
    assert.equal(a.totalValue, 1990);
    assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, before.remaining - 1);
    const [row] = await sql<{ n: number }>(
      api.runtime.orm.em.fork(),
      `select count(*)::int as n from credit_entries where analysis_id = ? and reason = 'refund'`,
      [id],
    );
    assert.equal(row!.n, 0);
  });
});
