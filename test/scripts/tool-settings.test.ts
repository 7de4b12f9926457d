import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { toolSettings } from '../../scripts/lib/tool-settings.js';

const root = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('the tools’ settings (scripts/lib/tool-settings.ts)', () => {
  it('gives each variable its default when unset or empty', () => {
    const s = toolSettings({ BENCH_N: '', TEST_CONCURRENCY: undefined });
    assert.equal(s.BENCH_N, 200);
    assert.equal(s.TEST_CONCURRENCY, 5);
    assert.equal(s.TEST_DATABASE_NAME, 'shelf_test');
    assert.equal(s.BENCH_ROUNDS, undefined, 'each benchmark gives its own');
  });

  it('reads numbers and names, and BENCH_DATABASE as BENCH_DATABASE_NAME', () => {
    const s = toolSettings({ BENCH_N: '50', CLUSTER_API_PORTS: '3000,3002,3004', BENCH_DATABASE: 'other_bench' });
    assert.equal(s.BENCH_N, 50);
    assert.equal(s.CLUSTER_API_PORTS, '3000,3002,3004');
    assert.equal(s.BENCH_DATABASE_NAME, 'other_bench');
  });

  it('stops on a value its variable does not take, naming the variable', () => {
    assert.throws(() => toolSettings({ BENCH_N: '2OO' }), /BENCH_N=2OO/);
    assert.throws(() => toolSettings({ BENCH_SERVER: 'disk' }), /BENCH_SERVER=disk/);
    assert.throws(() => toolSettings({ TEST_TEMPORAL_PORT: '70000' }), /TEST_TEMPORAL_PORT=70000/);
    assert.throws(() => toolSettings({ BENCH_DATABASE_NAME: 'x; drop' }), /BENCH_DATABASE_NAME/);
  });

  it('is where the tools read their variables: no script reads one from the environment itself', () => {
    const own = /process\.env\.((BENCH|TEST|CLUSTER)_[A-Z_]+|EMBEDDED_PG_PORT)\b/g;
    const reads = sources(join(root, 'scripts'))
      .filter((file) => !file.endsWith('tool-settings.ts'))
      .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(own)].map((m) => `${relative(root, file)}: ${m[0]}`));
    assert.deepEqual(reads, []);
  });
});
