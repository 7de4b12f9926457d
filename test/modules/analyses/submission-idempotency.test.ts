import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../../src/db/sql.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { uniquePrefix } from '../../helpers/worker.js';

/**
 * Found by `npm run soak`: the answer to a submission with an Idempotency-Key was stored by its own
 * statement after the submission's transaction. An API process dying, or PostgreSQL restarting,
 * between the two left the analyses and their charge committed and the key `running`; once that
 * claim lapsed, the client's retry ran the submission again (a second charge). The answer must be
 * written by the transaction that charges: PostgreSQL's xmin (the id of the transaction that wrote
 * a row) of the key's row and of the charge's ledger row are then the same.
 */
describe('a submission with an Idempotency-Key', () => {
  let api: TestApi;
  let org: TestOrg;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('submission-idempotency') });
    org = await createTestOrg(api.runtime, { credits: 20 });
  });
  after(async () => {
    await api.close();
  });

  async function writers(key: string, analysisIds: string[]) {
    const em = api.runtime.orm.em.fork();
    const [claim] = await sql<{ xmin: string; state: string; response_status: number }>(
      em,
      `select xmin::text as xmin, state, response_status from idempotency_keys where key = ?`,
      [key],
    );
    const charges = await sql<{ xmin: string }>(
      em,
      `select distinct xmin::text as xmin from credit_entries where reason = 'analysis' and analysis_id in (${analysisIds.map(() => '?').join(', ')})`,
      analysisIds,
    );
    return { claim: claim!, charges: charges.map((c) => c.xmin) };
  }

  it('single: its answer commits in the transaction that charged, and a retry replays it', async () => {
    const key = `single-${Date.now()}`;
    const body = { imageUrl: 'https://images.example.com/shelf.jpg' };
    const first = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body,
      headers: { 'idempotency-key': key },
    });
    assert.equal(first.status, 202, first.text);
    const { claim, charges } = await writers(key, [first.body.data.id]);
    assert.equal(claim.state, 'completed');
    assert.equal(claim.response_status, 202);
    assert.deepEqual(charges, [claim.xmin], 'the key was completed by the charging transaction');

    const again = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body,
      headers: { 'idempotency-key': key },
    });
    assert.equal(again.status, 202);
    assert.equal(again.headers.get('x-idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
  });

  it('batch: likewise', async () => {
    const key = `batch-${Date.now()}`;
    const body = {
      images: [{ imageUrl: 'https://images.example.com/a.jpg' }, { imageUrl: 'https://images.example.com/b.jpg' }],
    };
    const first = await api.request('POST', '/analyses/batch', {
      key: org.keys.write,
      body,
      headers: { 'idempotency-key': key },
    });
    assert.equal(first.status, 202, first.text);
    const ids = (first.body.data.analyses as { id: string }[]).map((a) => a.id);
    const { claim, charges } = await writers(key, ids);
    assert.equal(claim.state, 'completed');
    assert.deepEqual(charges, [claim.xmin]);

    const again = await api.request('POST', '/analyses/batch', {
      key: org.keys.write,
      body,
      headers: { 'idempotency-key': key },
    });
    assert.equal(again.headers.get('x-idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
  });
});
