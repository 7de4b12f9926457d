import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertRefused, runCli as cli } from '../helpers/cli.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { uniquePrefix } from '../helpers/worker.js';

describe('operator CLI: org:set-limits', () => {
  let api: TestApi;
  let env: Record<string, string>;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('cli-limits') });
    env = { TASK_QUEUE_PREFIX: api.runtime.config.TASK_QUEUE_PREFIX };
  });
  after(async () => {
    await api.close();
  });

  const usage = async (org: TestOrg) => (await api.request('GET', '/usage', { key: org.keys.read })).body.data;

  it('sets an enterprise organisation’s limits, merged over the earlier ones; the API enforces them', async () => {
    const org = await createTestOrg(api.runtime, { credits: 1 });
    const first = await cli(env, 'org:set-limits', '--org', org.id, '--analyses', '7', '--max-batch', '300', '--json');
    assert.equal(first.code, 0, first.stderr);
    const out = JSON.parse(first.stdout);
    assert.equal(out.effective.rateLimits.analyses, 7);
    assert.equal(out.effective.maxBatchSize, 300);

    const second = await cli(env, 'org:set-limits', '--org', org.id, '--reads', '3');
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /analyses 7\/min, reads 3\/min, writes 100000\/min, batches up to 300 images/);

    const u = await usage(org);
    assert.equal(u.plan.maxBatchSize, 300);
    // The read window now holds 3 a minute: the /usage call above was one, two more pass, the next is refused.
    assert.equal((await api.request('GET', '/places', { key: org.keys.read })).status, 200);
    assert.equal((await api.request('GET', '/places', { key: org.keys.read })).status, 200);
    const refused = await api.request('GET', '/places', { key: org.keys.read });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('x-ratelimit-limit'), '3');
  });

  it('refuses bad input with exit code 2: other plans, unknown organisations, bad numbers, nothing to set', async () => {
    const growth = await createTestOrg(api.runtime, { plan: 'growth' });
    assertRefused(await cli(env, 'org:set-limits', '--org', growth.id, '--reads', '5'), /growth plan.*enterprise/);
    assertRefused(await cli(env, 'org:set-limits', '--org', 'org_nope', '--reads', '5'), /No organisation/);
    const org = await createTestOrg(api.runtime);
    for (const bad of ['0', '-1', '2.5', 'lots', '1e3'])
      assertRefused(
        await cli(env, 'org:set-limits', '--org', org.id, `--writes=${bad}`),
        /--writes must be a whole number of at least 1/,
      );
    assertRefused(await cli(env, 'org:set-limits', '--org', org.id, '--max-batch', '5000'), /cannot exceed 1000/);
    const none = await cli(env, 'org:set-limits', '--org', org.id);
    assertRefused(none, /at least one of --analyses/);
    assert.match(none.stderr, /Usage: npm run cli/);
    assertRefused(await cli(env, 'org:set-limits', '--reads', '5'), /--org is required/);
  });
});
