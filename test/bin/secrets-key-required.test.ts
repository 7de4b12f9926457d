import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { parseConfig } from '../../src/config.js';
import { startApiProcess } from '../helpers/api-process.js';
import { nodeEntry } from '../helpers/node-entry.js';

const root = resolve(import.meta.dirname, '../..');

/** An entry point as the compiled `start:*:prod` scripts run it: the environment without NODE_ENV and SECRETS_KEY, plus `env`. */
function run(entry: string, args: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base.NODE_ENV;
  delete base.SECRETS_KEY;
  Object.assign(base, { LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' }, env);
  return new Promise((done) => {
    execFile(
      process.execPath,
      [...nodeEntry(entry), ...args],
      { cwd: root, env: base, timeout: 60_000 },
      (err, _out, stderr) => done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

function assertRefusedForTheKey(r: { code: number; stderr: string }, what: string): void {
  assert.notEqual(r.code, 0, `${what} started without SECRETS_KEY`);
  assert.match(r.stderr, /SECRETS_KEY is not set/, what);
  assert.match(r.stderr, /openssl rand -hex 32/, `${what}: says how to make a key`);
  assert.match(r.stderr, /NODE_ENV=development/, `${what}: says how to run without one in development`);
  assert.doesNotMatch(r.stderr, /\n\s+at /, `${what}: no stack trace`);
}

describe('SECRETS_KEY is required outside development and tests (no key from the repository seals anything)', () => {
  it('the API refuses to start without it when NODE_ENV is unset or `staging`, with a paragraph saying what to set', async () => {
    const [unset, staging] = await Promise.all([
      run('src/bin/api.ts', [], {}),
      run('src/bin/api.ts', [], { NODE_ENV: 'staging' }),
    ]);
    assertRefusedForTheKey(unset, 'the API with NODE_ENV unset');
    assertRefusedForTheKey(staging, 'the API with NODE_ENV=staging');
  });

  it('so do the worker, the admin CLI and `npm run migrate`', async () => {
    const [worker, cli, migrate] = await Promise.all([
      run('workers/main.ts', [], { WORKER_HEALTH_PORT: '0', METRICS_PORT: '0', TEMPORAL_METRICS_PORT: '0' }),
      run('src/cli/main.ts', ['org:list'], {}),
      run('scripts/migrate.ts', [], { NODE_ENV: 'production' }),
    ]);
    assertRefusedForTheKey(worker, 'the worker');
    assertRefusedForTheKey(cli, 'the CLI');
    assertRefusedForTheKey(migrate, 'migrate');
  });

  it('the API starts without it when NODE_ENV is explicitly `development`', async () => {
    const { child, base } = await startApiProcess({
      NODE_ENV: 'development',
      SECRETS_KEY: undefined,
      METRICS_PORT: '0',
    });
    try {
      assert.equal((await fetch(`${base}/health/live`)).status, 200);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('the configuration accepts a missing key only under NODE_ENV development or test', () => {
    const key = 'ab'.repeat(32);
    for (const NODE_ENV of [undefined, 'production', 'staging', 'prod'])
      assert.throws(() => parseConfig({ NODE_ENV }), /SECRETS_KEY is not set/, `NODE_ENV=${NODE_ENV}`);
    for (const NODE_ENV of ['development', 'test']) assert.equal(parseConfig({ NODE_ENV }).SECRETS_KEY, undefined);
    for (const NODE_ENV of [undefined, 'production', 'staging'])
      assert.equal(parseConfig({ NODE_ENV, SECRETS_KEY: key }).SECRETS_KEY, key);
  });
});
