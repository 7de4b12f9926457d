import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../src/db/sql.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { assertRefused, cliJson, runCli } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { uniquePrefix } from '../helpers/worker.js';

/** What a terminal acts on: ESC, BEL, C1's CSI, a line break or carriage return (issue 36). */
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

// A name stored before the API refused control characters (or by anything but the API): a line
// break forging a second row of `key:list`, an OSC sequence retitling the terminal, a C1 CSI.
const FORGED = 'sync\nkey_01forgedforgedforgedforged  admin  svc_live_0000…  active   root\u001b]0;pwned\u0007\u009b2J';

describe('operator CLI: stored text reaches the terminal escaped, one row per record', () => {
  let api: TestApi;
  let org: TestOrg;
  const env: Record<string, string> = {};

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('cli-terminal') });
    org = await createTestOrg(api.runtime);
    const em = api.runtime.orm.em.fork();
    await sql(em, `update api_keys set name = ? where organisation_id = ? and role = 'read'`, [FORGED, org.id]);
    await sql(em, `update organisations set name = ? where id = ?`, [FORGED, org.id]);
  });
  after(async () => {
    await api.close();
  });

  it('key:list prints a stored name holding a line break and escape sequences escaped, on its own row', async () => {
    const run = await runCli(env, 'key:list', '--org', org.id);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, RAW_CONTROL, 'no control character reaches the terminal');
    const rows = run.stdout.trimEnd().split('\n');
    assert.equal(rows.length, 3, `one row per key:\n${run.stdout}`);
    const read = rows.find((r) => / read /.test(r))!;
    assert.ok(
      read.endsWith(
        'sync\\nkey_01forgedforgedforgedforged  admin  svc_live_0000…  active   root\\x1b]0;pwned\\x07\\x9b2J',
      ),
      read,
    );
    assert.ok(!rows.some((r) => r.startsWith('key_01forged')), 'no forged row');

    // --json keeps the data as stored (parsed, it is the same name), but as escapes, C1 included.
    const json = await runCli(env, 'key:list', '--org', org.id, '--json');
    assert.equal(json.code, 0, json.stderr);
    assert.doesNotMatch(json.stdout, RAW_CONTROL);
    assert.equal((JSON.parse(json.stdout) as { name: string }[]).find((k) => k.name.startsWith('sync'))!.name, FORGED);
  });

  it('org:list and org:export escape the stored organisation name too', async () => {
    const list = await runCli(env, 'org:list');
    assert.equal(list.code, 0, list.stderr);
    assert.doesNotMatch(list.stdout, RAW_CONTROL);
    const rows = list.stdout.split('\n').filter((r) => r.includes(org.id));
    assert.equal(rows.length, 1);
    assert.match(rows[0]!, /credits {2}sync\\nkey_01forged.*root\\x1b\]0;pwned\\x07\\x9b2J$/);
    assert.ok(!list.stdout.split('\n').some((r) => r.startsWith('key_01forged')));

    const exported = await runCli(env, 'org:export', '--org', org.id);
    assert.equal(exported.code, 0, exported.stderr);
    assert.doesNotMatch(exported.stdout, RAW_CONTROL);
    const first = exported.stdout
      .split('\n')
      .map((l) => l && JSON.parse(l))
      .find((r) => r?.type === 'organisation');
    assert.equal(first.data.name, FORGED, 'the same data, parsed');
  });

  it('refuses control characters in the names and e-mail addresses it stores, exit code 2', async () => {
    for (const name of ['ops\nkey_forged', 'ops\u001b]0;pwned\u0007', 'ops\tx', 'ops\u009b2J'])
      assertRefused(
        await runCli(env, 'key:create', '--org', org.id, '--role', 'read', '--name', name),
        /--name must not contain control characters/,
      );
    assertRefused(await runCli(env, 'org:create', '--name', 'Acme\r\nforged'), /--name must not contain/);
    assertRefused(
      await runCli(env, 'member:add', '--org', org.id, '--email', 'a@b.example', '--name', 'Sam\u001b[2J'),
      /--name must not contain/,
    );
    assert.equal((await cliJson(env, 'key:list', '--org', org.id)).length, 3, 'nothing stored');
    const ok = await cliJson(env, 'key:create', '--org', org.id, '--role', 'read', '--name', 'Zoë’s “sync” — 東京');
    assert.equal(ok.name, 'Zoë’s “sync” — 東京', 'printable Unicode is kept as it is');
  });
});
