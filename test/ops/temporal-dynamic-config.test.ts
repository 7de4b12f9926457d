import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { load } from 'js-yaml';
import { DYNAMIC_CONFIG } from '../../scripts/temporal.js';

const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(resolve(root, path), 'utf8');

type Compose = { services: { temporal: { volumes: string[]; environment: Record<string, string> } } };

describe("the Temporal server's dynamic config (fairness), in production and in the dev server", () => {
  it('ops/temporal/dynamic-config.yaml holds the values the dev server starts with, unconstrained', () => {
    const file = load(read('ops/temporal/dynamic-config.yaml')) as Record<string, { value: unknown }[]>;
    const values = Object.fromEntries(
      Object.entries(file).map(([key, entries]) => {
        assert.equal(entries.length, 1, `${key}: one value, for every namespace and queue`);
        assert.deepEqual(Object.keys(entries[0]!), ['value'], `${key}: no constraints`);
        return [key, entries[0]!.value];
      }),
    );
    assert.deepEqual(values, DYNAMIC_CONFIG);
    assert.equal(values['matching.enableFairness'], true);
  });

  it('production.yaml reads that file, and docker-compose mounts it where it tells the server to look', () => {
    const production = read('ops/temporal/production.yaml');
    const client = /^dynamicConfigClient:\n {2}filepath: (.+)\n {2}pollInterval: (\S+)$/m.exec(production);
    assert.ok(client, 'production.yaml has a dynamicConfigClient');
    assert.match(client[1]!, /env "TEMPORAL_DYNAMIC_CONFIG" \| default "ops\/temporal\/dynamic-config\.yaml"/);

    const compose = load(read('docker-compose.yml')) as Compose;
    const path = compose.services.temporal.environment.TEMPORAL_DYNAMIC_CONFIG;
    assert.ok(path, 'compose tells the server where the file is');
    assert.ok(
      compose.services.temporal.volumes.includes(`./ops/temporal/dynamic-config.yaml:${path}:ro`),
      'compose mounts the file there',
    );
  });
});
