import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { ShelfClient } from '../../../clients/typescript/src/index.js';
import { CLIENT_SCHEMA_PATH, clientSchemaSource } from '../../../scripts/lib/client-schema.js';

const root = resolve(import.meta.dirname, '../../..');

describe('the TypeScript client package', () => {
  it('has committed types equal to what openapi-typescript generates from the current OpenAPI document', async () => {
    const committed = await readFile(join(root, CLIENT_SCHEMA_PATH), 'utf8');
    const generated = await clientSchemaSource();
    assert.ok(
      committed === generated,
      `${CLIENT_SCHEMA_PATH} is out of date with src/http/openapi.ts and the routes: run \`npm run client:generate\` and commit it`,
    );
  });

  it('builds with its own tsconfig, and the built package loads', async () => {
    // Inside the checkout, so that the built files find openapi-fetch in node_modules as an installed package would.
    const outDir = join(root, '.data', 'test', `client-dist-${process.pid}`);
    try {
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      await promisify(execFile)(process.execPath, [tsc, '-p', 'clients/typescript', '--outDir', outDir], { cwd: root });
      const pkg = JSON.parse(await readFile(join(root, 'clients/typescript/package.json'), 'utf8'));
      for (const [entry, target] of Object.entries<{ types: string; default: string }>(pkg.exports)) {
        const types = await readFile(join(outDir, target.types.replace('./dist/', '')), 'utf8');
        assert.ok(types.length > 0, `${entry} has declarations`);
      }
      const index = await import(pathToFileURL(join(outDir, 'index.js')).href);
      const webhooks = await import(pathToFileURL(join(outDir, 'webhooks.js')).href);
      assert.equal(typeof index.createClient, 'function');
      assert.equal(typeof index.ShelfApiError, 'function');
      assert.equal(typeof webhooks.verifyWebhookSignature, 'function');
      const client = index.createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'svc_live_x' }) as ShelfClient;
      assert.deepEqual(Object.keys(client).sort(), [
        'delete',
        'get',
        'paginate',
        'patch',
        'post',
        'raw',
        'waitForAnalysis',
      ]);
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  });
});

/**
 * Compile-time checks, run by `npm run typecheck` (never called): the generated types reach the
 * caller, so a wrong path, a missing required field or a wrong type does not compile.
 */
export async function typeChecks(client: ShelfClient) {
  // @ts-expect-error no such path
  await client.get('/api/v1/nothing');
  // @ts-expect-error imageUrl is required
  await client.post('/api/v1/analyses', { body: { externalId: 'x' } });
  // @ts-expect-error the path parameter is required
  await client.get('/api/v1/analyses/{id}');
  const { data } = await client.get('/api/v1/analyses/{id}', { params: { path: { id: 'an_1' } } });
  const status: 'processing' | 'completed' | 'failed' = data.status;
  for await (const place of client.paginate('/api/v1/places', { query: { countryCode: 'GB' } })) {
    const title: string = place.title;
    void title;
  }
  // @ts-expect-error only list operations can be paged
  client.paginate('/api/v1/usage');
  return status;
}
