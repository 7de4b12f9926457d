import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { CONFIG_KEYS } from '../../src/config.js';

const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

describe('README', () => {
  it('documents every configuration variable in its table', () => {
    const missing = CONFIG_KEYS.filter((k) => !readme.includes(`| \`${k}\` |`));
    assert.deepEqual(missing, []);
  });

  it('names the scripts it tells users to run', () => {
    const scripts = Object.keys(
      JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')).scripts,
    );
    for (const m of readme.matchAll(/npm run ([a-z:]+)/g)) assert.ok(scripts.includes(m[1]!), `npm run ${m[1]}`);
  });
});
