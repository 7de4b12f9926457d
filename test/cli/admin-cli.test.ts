import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { request } from '../helpers/api.js';
import { startServer } from '../../src/server.js';
import { nodeEntry } from '../helpers/node-entry.js';
import { cliJson, runCli } from '../helpers/cli.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

// The program itself (src/cli/main.ts, a child process) where what is tested is the program: JSON on
// its stdout and exit code 0, a refusal's and a usage error's exit code 2 and stderr. Each start costs
// about 0.9 s of CPU; the other commands run the same code in this process (runCli, D285, D299).
async function program(...args: string[]) {
  const { stdout } = await run(process.execPath, [...nodeEntry('src/cli/main.ts'), ...args, '--json'], {
    cwd: root,
    env: process.env,
  });
  return JSON.parse(stdout);
}

describe('admin CLI', () => {
  it('creates an organisation and keys, lists and revokes them, grants credits, all as JSON', async () => {
    const org = await program('org:create', '--name', 'CLI Org', '--plan', 'pro', '--credits', '25');
    assert.match(org.id, /^org_/);
    assert.equal(org.plan, 'pro');
    assert.equal(org.credits, 25);
    assert.equal(org.monthlyCredits, 20_000, "the plan's, not --credits");
    assert.ok(Date.parse(org.periodEnd) > Date.now());

    // Enterprise: monthly credits per organisation, from the next period; refused on other plans.
    const enterprise = await cliJson(
      {},
      'org:set-plan',
      '--org',
      org.id,
      '--plan',
      'enterprise',
      '--monthly-credits',
      '300',
    );
    assert.deepEqual(enterprise, { id: org.id, plan: 'enterprise', monthlyCredits: 300, periodEnd: org.periodEnd });
    await assert.rejects(
      run(
        process.execPath,
        [...nodeEntry('src/cli/main.ts'), 'org:set-plan', '--org', org.id, '--plan', 'pro', '--monthly-credits', '5'],
        { cwd: root, env: process.env },
      ),
      (err: any) => err.code === 2 && /enterprise only/.test(err.stderr),
    );

    const key = await cliJson({}, 'key:create', '--org', org.id, '--role', 'admin', '--name', 'ops');
    assert.match(key.key, /^svc_live_[0-9a-f]{64}$/);
    assert.match(key.id, /^key_/);

    const keys = await cliJson({}, 'key:list', '--org', org.id);
    assert.equal(keys.length, 1);
    assert.equal(keys[0].role, 'admin');
    assert.ok(!JSON.stringify(keys).includes(key.key), 'listing never shows the secret');

    const balance = await cliJson({}, 'credits:grant', '--org', org.id, '--amount', '10', '--pool', 'payg');
    assert.deepEqual(balance, { plan: 25, payg: 10, remaining: 35 });

    process.env.PORT = '0';
    const api = await startServer();
    try {
      const port = (api.server.address() as { port: number }).port;
      const base = `http://127.0.0.1:${port}`;
      assert.equal((await request(base, 'GET', '/places', { key: key.key })).status, 200);
      const revoked = await cliJson({}, 'key:revoke', '--org', org.id, '--key', key.id);
      assert.ok(revoked.revokedAt);
      const res = await request(base, 'GET', '/places', { key: key.key });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'INVALID_API_KEY');
    } finally {
      await api.close();
    }
  });

  it('exits with 2 and the usage, no stack trace, on an unknown option or an option without its value', async () => {
    const usage = (run: { code: number; stderr: string }, args: string[]) => {
      assert.equal(run.code, 2, args.join(' '));
      assert.match(run.stderr, /^error: .*\n\nUsage: npm run cli/, args.join(' '));
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    };
    // The program: its exit code and stderr.
    await assert.rejects(
      run(process.execPath, [...nodeEntry('src/cli/main.ts'), 'org:list', '--bogus'], { cwd: root, env: process.env }),
      (err: any) => (usage(err, ['org:list', '--bogus']), true),
    );
    // The same code in this process.
    for (const args of [
      ['key:create', '--org'],
      ['credits:show', '--org', '--json'],
    ])
      usage(await runCli({}, ...args), args);
  });

  it('exits with 2 and the usage on a bad command', async () => {
    const refused = await runCli({}, 'key:create');
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--org is required/);
  });
});
