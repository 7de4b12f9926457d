import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { request } from '../helpers/api.js';
import { startServer } from '../../src/server.js';
import { nodeEntry } from '../helpers/node-entry.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

async function cli(...args: string[]) {
  const { stdout } = await run(process.execPath, [...nodeEntry('src/cli/main.ts'), ...args, '--json'], {
    cwd: root,
    env: process.env,
  });
  return JSON.parse(stdout);
}

describe('admin CLI', () => {
  it('creates an organisation and keys, lists and revokes them, grants credits, all as JSON', async () => {
    const org = await cli('org:create', '--name', 'CLI Org', '--plan', 'pro', '--credits', '25');
    assert.match(org.id, /^org_/);
    assert.equal(org.plan, 'pro');
    assert.equal(org.credits, 25);
    assert.equal(org.monthlyCredits, 20_000, "the plan's, not --credits");
    assert.ok(Date.parse(org.periodEnd) > Date.now());

    // Enterprise: monthly credits per organisation, from the next period; refused on other plans.
    const enterprise = await cli('org:set-plan', '--org', org.id, '--plan', 'enterprise', '--monthly-credits', '300');
    assert.deepEqual(enterprise, { id: org.id, plan: 'enterprise', monthlyCredits: 300, periodEnd: org.periodEnd });
    await assert.rejects(
      run(
        process.execPath,
        [...nodeEntry('src/cli/main.ts'), 'org:set-plan', '--org', org.id, '--plan', 'pro', '--monthly-credits', '5'],
        { cwd: root, env: process.env },
      ),
      (err: any) => err.code === 2 && /enterprise only/.test(err.stderr),
    );

    const key = await cli('key:create', '--org', org.id, '--role', 'admin', '--name', 'ops');
    assert.match(key.key, /^svc_live_[0-9a-f]{64}$/);
    assert.match(key.id, /^key_/);

    const keys = await cli('key:list', '--org', org.id);
    assert.equal(keys.length, 1);
    assert.equal(keys[0].role, 'admin');
    assert.ok(!JSON.stringify(keys).includes(key.key), 'listing never shows the secret');

    const balance = await cli('credits:grant', '--org', org.id, '--amount', '10', '--pool', 'payg');
    assert.deepEqual(balance, { plan: 25, payg: 10, remaining: 35 });

    process.env.PORT = '0';
    const api = await startServer();
    try {
      const port = (api.server.address() as { port: number }).port;
      const base = `http://127.0.0.1:${port}`;
      assert.equal((await request(base, 'GET', '/places', { key: key.key })).status, 200);
      const revoked = await cli('key:revoke', '--org', org.id, '--key', key.id);
      assert.ok(revoked.revokedAt);
      const res = await request(base, 'GET', '/places', { key: key.key });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'INVALID_API_KEY');
    } finally {
      await api.close();
    }
  });

  it('exits with 2 and the usage, no stack trace, on an unknown option or an option without its value', async () => {
    for (const args of [
      ['org:list', '--bogus'],
      ['key:create', '--org'],
      ['credits:show', '--org', '--json'],
    ]) {
      await assert.rejects(
        run(process.execPath, [...nodeEntry('src/cli/main.ts'), ...args], { cwd: root, env: process.env }),
        (err: any) => {
          assert.equal(err.code, 2, args.join(' '));
          assert.match(err.stderr, /^error: .*\n\nUsage: npm run cli/, args.join(' '));
          assert.doesNotMatch(err.stderr, /\n\s+at /, 'no stack trace');
          return true;
        },
      );
    }
  });

  it('exits with 2 and the usage on a bad command', async () => {
    await assert.rejects(
      run(process.execPath, [...nodeEntry('src/cli/main.ts'), 'key:create'], { cwd: root, env: process.env }),
      (err: any) => {
        assert.equal(err.code, 2);
        assert.match(err.stderr, /--org is required/);
        return true;
      },
    );
  });
});
