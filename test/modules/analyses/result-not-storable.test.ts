import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../../src/db/sql.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../../helpers/image-host.js';
import { product, ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { waitFor } from '../../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

/**
 * A result the database refuses (here: a shelf total past the analyses.total_value numeric(14,2),
 * from products each within their own columns) must end the analysis, not retry it forever.
 */
describe('an analysis whose result the database refuses', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let stopWorkers: () => Promise<void>;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('not-storable') });
    const recognizer = new ScriptedRecognizer(() => [
      product({ brand: 'Gold', description: 'Bar A', price: 9_999_999_999.99, units: 1000 }),
      product({ brand: 'Gold', description: 'Bar B', price: 9_999_999_999.99, units: 1000 }),
    ]);
    stopWorkers = (await startTestWorkers(api.runtime, recognizer)).stop;
    org = await createTestOrg(api.runtime, { credits: 5 });
    host = await startImageHost({ '/gold.png': { body: await pngOfWidth(80) } });
  });
  after(async () => {
    await stopWorkers();
    await host.close();
    await api.close();
  });

  it('ends failed with RESULT_NOT_STORABLE, the credit refunded, an analysis_failed alert, and no SQL parameters in the message', async () => {
    const before = await api.runtime.services.credits.balance(org.id);
    const res = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: { imageUrl: host.url('/gold.png') },
    });
    assert.equal(res.status, 202);
    const id = res.body.data.id;
    const a = await waitFor('the analysis to end', async () => {
      const got = (await api.request('GET', `/analyses/${id}`, { key: org.keys.read })).body.data;
      return got.status !== 'processing' && got;
    });
    assert.equal(a.status, 'failed');
    assert.equal(a.error.code, 'RESULT_NOT_STORABLE');
    assert.match(a.error.message, /22003/);
    assert.doesNotMatch(
      a.error.message,
      /insert into|update "analyses"|9999999999/i,
      'no statement and no bound values',
    );
    assert.equal(a.products.length, 0);
    assert.equal((await api.runtime.services.credits.balance(org.id)).remaining, before.remaining);
    const em = api.runtime.orm.em.fork();
    const ledger = await sql<{ reason: string; n: number }>(
      em,
      `select reason, count(*)::int as n from credit_entries where analysis_id = ? group by reason order by reason`,
      [id],
    );
    assert.deepEqual(ledger, [
      { reason: 'analysis', n: 1 },
      { reason: 'refund', n: 1 },
    ]);
    const [alert] = await sql<{ metadata: any }>(
      em,
      `select metadata from alerts where type = 'analysis_failed' and source_id = ?`,
      [id],
    );
    assert.equal(alert?.metadata.errorCode, 'RESULT_NOT_STORABLE');
    const result = await api.runtime.temporal.client.workflow.getHandle(id).result();
    assert.deepEqual(result, { analysisId: id, status: 'failed', productCount: 0, errorCode: 'RESULT_NOT_STORABLE' });
  });
});
