import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { ShelfClient } from '../../../clients/typescript/src/index.js';
import { CLIENT_SCHEMA_PATH, clientSchemaSource, offlineOpenApiDocument } from '../../../scripts/lib/client-schema.js';
import { uniqueName } from '../../helpers/fresh-database.js';

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
    const outDir = join(root, '.data', 'test', uniqueName('client-dist'));
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

  it("compiles every operation's TypeScript sample in the API reference against the client's types", async () => {
    const dir = join(root, '.data', 'test', uniqueName('client-samples'));
    try {
      await mkdir(dir, { recursive: true });
      const doc = offlineOpenApiDocument() as unknown as { paths: Record<string, Record<string, Record<string, any>>> };
      let count = 0;
      for (const ops of Object.values(doc.paths))
        for (const op of Object.values(ops)) {
          const [sample] = op['x-codeSamples'] as { lang: string; label: string; source: string }[];
          assert.equal(sample!.label, 'TypeScript client');
          const source = sample!.source.replace(
            "'@shelf/client'",
            `'${join(root, 'clients/typescript/src/index.js')}'`,
          );
          await writeFile(join(dir, `${op.operationId}.ts`), source);
          count++;
        }
      assert.ok(count >= 40, `${count} operations`);
      await writeFile(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ extends: join(root, 'tsconfig.json'), include: ['*.ts'], compilerOptions: { noEmit: true } }),
      );
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      const run = await promisify(execFile)(process.execPath, [tsc, '-p', dir], { cwd: root }).catch(
        (err: { stdout: string }) => ({ stdout: err.stdout, failed: true }),
      );
      assert.ok(!('failed' in run), `the samples do not compile:\n${run.stdout}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
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
