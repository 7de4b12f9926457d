import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../src/db/sql.js';
import { hashApiKey } from '../../src/modules/api-keys/api-key-secret.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { assertRefused, cliJson, runCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { pngOfWidth, startImageHost, type ImageHost } from '../helpers/image-host.js';
import { product, ScriptedRecognizer } from '../helpers/scripted-recognizer.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../helpers/worker.js';

type Line = { type: string; data: Record<string, any> };

describe('operator CLI: org:export', () => {
  let api: TestApi;
  let host: ImageHost;
  let env: Record<string, string>;
  let stopWorkers: () => Promise<void>;
  let dir: string;
  let org: TestOrg;
  let other: TestOrg;
  /** Every secret the organisation was ever shown: none may appear in an export. */
  const secrets: string[] = [];

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('cli-export') });
    env = { TASK_QUEUE_PREFIX: api.runtime.config.TASK_QUEUE_PREFIX };
    stopWorkers = (
      await startTestWorkers(
        api.runtime,
        new ScriptedRecognizer(() => [product({ brand: 'Heinz', description: 'Baked Beans', units: 2, price: 1.2 })]),
      )
    ).stop;
    host = await startImageHost({ '/shelf.png': { body: await pngOfWidth(64) } });
    dir = await mkdtemp(join(tmpdir(), 'org-export-'));

    org = await createTestOrg(api.runtime, { credits: 5 });
    other = await createTestOrg(api.runtime, { credits: 5 });
    secrets.push(...Object.values(org.keys), ...Object.values(org.keys).map(hashApiKey));
    await cliJson(env, 'member:add', '--org', org.id, '--email', 'ops@example.com', '--name', 'Ops Person');
    const place = await api.request('POST', '/places', {
      key: org.keys.write,
      body: { title: 'Corner Shop', countryCode: 'GB', channel: 'convenience' },
    });
    assert.equal(place.status, 201, JSON.stringify(place.body));
    const hook = await api.request('POST', '/webhooks', {
      key: org.keys.admin,
      body: { url: 'http://127.0.0.1:9/hook', events: ['analysis.completed'] },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    secrets.push(hook.body.data.secret);
    const rotated = await api.request('POST', `/webhooks/${hook.body.data.id}/rotate-secret`, { key: org.keys.admin });
    secrets.push(rotated.body.data.secret);
    const submitted = await api.request('POST', '/analyses', {
      key: org.keys.write,
      body: {
        imageUrl: host.url('/shelf.png'),
        callbackUrl: 'https://callback.example.com/shelf',
        externalId: 'visit-1',
      },
    });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    secrets.push(submitted.body.data.callbackSecret);
    await waitFor('the analysis to complete', async () => {
      const a = await api.request('GET', `/analyses/${submitted.body.data.id}`, { key: org.keys.read });
      return a.body.data.status === 'completed';
    });
    // Enough events for several pages of the export's keyset reads.
    await sql(
      api.runtime.orm.em.fork(),
      `insert into events (id, organisation_id, type, dedupe_key, data, created_at, dispatched_at)
       select 'evt_bulk_' || lpad(i::text, 5, '0'), ?, 'webhook.test', 'bulk:' || ? || ':' || i, '{}'::jsonb, now(), now()
         from generate_series(1, 1234) i`,
      [org.id, org.id],
    );
    await api.request('POST', '/places', {
      key: other.keys.write,
      body: { title: 'Not theirs', countryCode: 'GB', channel: 'convenience' },
    });
  });
  after(async () => {
    await stopWorkers();
    await host.close();
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  const parse = (text: string): Line[] =>
    text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);

  function assertComplete(lines: Line[]) {
    assert.equal(lines[0]!.type, 'export');
    assert.equal(lines[0]!.data.organisationId, org.id);
    const end = lines.at(-1)!;
    assert.equal(end.type, 'export_end');
    const counted: Record<string, number> = {};
    for (const l of lines.slice(1, -1)) counted[l.type] = (counted[l.type] ?? 0) + 1;
    for (const [type, n] of Object.entries(end.data.counts as Record<string, number>))
      assert.equal(counted[type] ?? 0, n, type);
  }

  it('writes the organisation’s records as JSON lines to stdout, each with its type, without a single secret', async () => {
    const run = await runCli(env, 'org:export', '--org', org.id);
    assert.equal(run.code, 0, run.stderr);
    const lines = parse(run.stdout);
    assertComplete(lines);
    const of = (type: string) => lines.filter((l) => l.type === type).map((l) => l.data);

    assert.deepEqual(
      of('organisation').map((o) => o.id),
      [org.id],
    );
    assert.equal(of('api_key').length, 3);
    assert.ok(of('api_key').every((k) => /^svc_live_/.test(k.keyPrefix) && !('keyHash' in k)));
    assert.deepEqual(
      of('member').map((m) => m.email),
      ['ops@example.com'],
    );
    assert.deepEqual(
      of('place').map((p) => p.title),
      ['Corner Shop'],
    );
    const [analysis] = of('analysis');
    assert.equal(analysis!.status, 'completed');
    assert.equal(analysis!.externalId, 'visit-1');
    assert.ok(!('callbackSecret' in analysis!));
    assert.deepEqual(
      of('product').map((p) => [p.analysisId, p.brand, p.units]),
      [[analysis!.id, 'Heinz', 2]],
    );
    assert.equal(of('analysis_run').length, 1);
    const [webhook] = of('webhook');
    assert.ok(webhook && !('secret' in webhook) && !('previousSecret' in webhook));
    assert.ok(of('credit_entry').some((c) => c.reason === 'analysis' && c.analysisId === analysis!.id));
    assert.ok(of('delivery').length >= 2, 'the webhook and the callback');
    // 1,234 bulk events and the analysis' own, across several pages, each once, in id order.
    const events = of('event').map((e) => e.id as string);
    assert.equal(events.filter((id) => id.startsWith('evt_bulk_')).length, 1234);
    assert.equal(new Set(events).size, events.length);
    assert.deepEqual(events, [...events].sort());

    for (const secret of secrets) assert.ok(!run.stdout.includes(secret), 'a secret in the export');
    assert.doesNotMatch(run.stdout, /"(keyHash|secret|previousSecret|callbackSecret|responseSealed)"/);
    assert.ok(!run.stdout.includes(other.id), 'another organisation’s records');
    assert.ok(!run.stdout.includes('Not theirs'));
  });

  it('--out writes a new file readable by its owner only, and says what it wrote', async () => {
    const file = join(dir, 'export.jsonl');
    const summary = await cliJson(env, 'org:export', '--org', org.id, '--out', file);
    assert.equal(summary.file, file);
    const lines = parse(await readFile(file, 'utf8'));
    assertComplete(lines);
    assert.deepEqual(summary.counts, lines.at(-1)!.data.counts);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
  });

  it('bad input: exit code 2 and the reason; an existing file is left alone', async () => {
    assertRefused(await runCli(env, 'org:export'), /--org is required/);
    assertRefused(await runCli(env, 'org:export', '--org', 'org_nope'), /No organisation with id 'org_nope'/);
    const existing = join(dir, 'existing.jsonl');
    await writeFile(existing, 'keep me');
    assertRefused(await runCli(env, 'org:export', '--org', org.id, '--out', existing), /--out: EEXIST/);
    assert.equal(await readFile(existing, 'utf8'), 'keep me');
    assertRefused(
      await runCli(env, 'org:export', '--org', org.id, '--out', join(dir, 'no-such-dir', 'x.jsonl')),
      /--out: ENOENT/,
    );
    assertRefused(await runCli(env, 'org:export', '--org', org.id, '--out'), /argument missing/);
  });
});
