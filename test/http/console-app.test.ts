import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CONSOLE_CSP } from '../../src/http/console-app.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { uniqueName } from '../helpers/fresh-database.js';

const root = resolve(import.meta.dirname, '../..');

/** How the API serves the console's files (the pages themselves: test/console/console.test.ts). */
describe('the console files (/console)', () => {
  let built: TestApi;
  let unbuilt: TestApi;
  const dir = join(root, '.data', 'test', uniqueName('console-app'));

  before(async () => {
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(dir, 'assets', 'console-ABC123.js'), 'export {};');
    writeFileSync(join(root, '.data', 'test', 'secret.js'), 'not an asset');
    built = await startTestApi({ CONSOLE_DIR: dir });
    unbuilt = await startTestApi({ CONSOLE_DIR: join(dir, 'nowhere') });
  });
  after(async () => {
    await built?.close();
    await unbuilt?.close();
  });

  it('answers every path under /console with the page, under its policy and never cached', async () => {
    for (const path of ['/console', '/console/', '/console/analyses/an_123', '/console/set-password']) {
      const res = await fetch(`${built.baseUrl}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(await res.text(), '<!doctype html><title>console</title>');
      assert.equal(res.headers.get('content-security-policy'), CONSOLE_CSP);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
    }
    const home = await fetch(`${built.baseUrl}/`, { redirect: 'manual' });
    assert.equal(home.status, 302);
    assert.equal(home.headers.get('location'), '/console');
  });

  it('serves its hashed assets for a year, and nothing else from the disk', async () => {
    const asset = await fetch(`${built.baseUrl}/console/assets/console-ABC123.js`);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
    for (const path of [
      '/console/assets/missing.js',
      '/console/assets/..%2F..%2Fsecret.js',
      '/console/assets/%2e%2e%2findex.html',
      '/console/assets/index.html',
    ]) {
      const res = await fetch(`${built.baseUrl}${path}`);
      assert.equal(res.status, 404, path);
      assert.equal((await res.json()).error.code, 'NOT_FOUND');
    }
  });

  it('without a build, says how to make one', async () => {
    const res = await fetch(`${unbuilt.baseUrl}/console`);
    assert.equal(res.status, 503);
    assert.match(await res.text(), /npm run build/);
  });
});
