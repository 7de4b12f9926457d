import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServices } from '../../../src/services.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { cliJson } from '../../helpers/cli.js';

// The CLI's code in this process (D285); test/cli/admin-cli.test.ts starts the program itself (D299).
const cli = (...args: string[]) => cliJson({}, ...args);

describe('members and invitations', () => {
  let api: TestApi;
  let org: TestOrg;
  let owner: string;

  before(async () => {
    api = await startTestApi();
    org = await createTestOrg(api.runtime);
    owner = (
      await cli('member:add', '--org', org.id, '--email', 'Olivia@Shop.example', '--name', 'Olivia', '--role', 'owner')
    ).userId;
  });
  after(() => api.close());

  it('invites (admin only), refuses duplicates, accepts through the CLI, lists with filters', async () => {
    assert.equal(
      (await api.request('POST', '/members/invite', { key: org.keys.write, body: { email: 'sam@shop.example' } }))
        .status,
      403,
    );
    const bad = await api.request('POST', '/members/invite', {
      key: org.keys.admin,
      body: { email: 'nope', reportsTo: owner },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.details.fields[0].field, 'email');
    const ghost = await api.request('POST', '/members/invite', {
      key: org.keys.admin,
      body: { email: 'x@shop.example', reportsTo: 'usr_ghost' },
    });
    assert.equal(ghost.body.error.details.fields[0].field, 'reportsTo');
    const invited = await api.request('POST', '/members/invite', {
      key: org.keys.admin,
      body: { email: 'Sam@Shop.example', role: 'tasker', reportsTo: owner, phone: '+44 7700 900000' },
    });
    assert.equal(invited.status, 201);
    assert.match(invited.body.data.invitationId, /^mbi_/);
    assert.equal(invited.body.data.role, 'tasker');
    assert.equal(
      (await api.request('POST', '/members/invite', { key: org.keys.admin, body: { email: 'sam@shop.example' } }))
        .status,
      409,
      'pending duplicate',
    );
    assert.equal(
      (await api.request('POST', '/members/invite', { key: org.keys.admin, body: { email: 'olivia@shop.example' } }))
        .status,
      409,
      'already a member',
    );

    const pending = await cli('invite:list', '--org', org.id);
    assert.deepEqual(
      pending.map((p: any) => p.email),
      ['sam@shop.example'],
    );
    const sam = await cli(
      'invite:accept',
      '--org',
      org.id,
      '--invitation',
      invited.body.data.invitationId,
      '--name',
      'Sam',
    );
    assert.equal(sam.role, 'tasker');

    const taskers = await api.request('GET', '/members?role=tasker', { key: org.keys.read });
    assert.deepEqual(
      taskers.body.data.map((m: any) => [m.name, m.email, m.reportsTo]),
      [['Sam', 'sam@shop.example', owner]],
    );
    const search = await api.request('GET', '/members?search=OLIV', { key: org.keys.read });
    assert.deepEqual(
      search.body.data.map((m: any) => m.userId),
      [owner],
    );
    const other = await createTestOrg(api.runtime);
    assert.equal((await api.request('GET', '/members', { key: other.keys.read })).body.data.length, 0);
  });

  it('updates without reporting cycles and never loses the last owner', async () => {
    const services = createServices(api.runtime.orm.em.fork());
    const a = await services.members.add(org.id, { name: 'A', email: 'a@shop.example', role: 'member' });
    const b = await services.members.add(org.id, { name: 'B', email: 'b@shop.example', role: 'member' });
    assert.equal(
      (await api.request('PATCH', `/members/${b.id}`, { key: org.keys.admin, body: { reportsTo: a.id } })).status,
      200,
    );
    const cycle = await api.request('PATCH', `/members/${a.id}`, { key: org.keys.admin, body: { reportsTo: b.id } });
    assert.equal(cycle.status, 422);
    assert.equal(cycle.body.error.details.fields[0].field, 'reportsTo');
    assert.equal(
      (await api.request('PATCH', `/members/${a.id}`, { key: org.keys.admin, body: { reportsTo: a.id } })).status,
      422,
    );
    assert.equal(
      (await api.request('PATCH', `/members/${a.id}`, { key: org.keys.write, body: { name: 'x' } })).status,
      403,
    );

    const demote = await api.request('PATCH', `/members/${owner}`, { key: org.keys.admin, body: { role: 'member' } });
    assert.equal(demote.status, 409);
    assert.equal((await api.request('DELETE', `/members/${owner}`, { key: org.keys.admin })).status, 409);
    assert.equal(
      (await api.request('PATCH', `/members/${a.id}`, { key: org.keys.admin, body: { role: 'owner', name: 'Alex' } }))
        .body.data.name,
      'Alex',
    );
    assert.equal(
      (await api.request('DELETE', `/members/${owner}`, { key: org.keys.admin })).status,
      200,
      'another owner exists now',
    );
    assert.equal(
      (await api.request('DELETE', `/members/${a.id}`, { key: org.keys.admin })).status,
      409,
      'now the last owner',
    );
    const other = await createTestOrg(api.runtime);
    assert.equal(
      (await api.request('PATCH', `/members/${b.id}`, { key: other.keys.admin, body: { name: 'x' } })).status,
      404,
    );
  });
});
