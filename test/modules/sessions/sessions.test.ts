import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '../../../src/db/sql.js';
import { createServices } from '../../../src/services.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { cliJson, runCli } from '../../helpers/cli.js';
import { consoleRequest, sessionCookieOf, signedInMember, type ConsoleSession } from '../../helpers/console-session.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { ScriptedRecognizer } from '../../helpers/scripted-recognizer.js';
import { startTestWorkers, uniquePrefix } from '../../helpers/worker.js';

describe('console sessions: members sign in, and the session stands in for an API key', () => {
  let api: TestApi;
  let org: TestOrg;
  let stopWorkers: () => Promise<void>;
  let address = 0;
  /** A client address of its own for each test (the API trusts one proxy), so budgets never mix. */
  const nextAddress = () => `203.0.113.${++address}`;

  before(async () => {
    api = await startTestApi({ TASK_QUEUE_PREFIX: uniquePrefix('sessions'), TRUST_PROXY: true });
    stopWorkers = (await startTestWorkers(api.runtime, new ScriptedRecognizer(() => []))).stop;
    org = await createTestOrg(api.runtime);
  });
  after(async () => {
    await stopWorkers?.();
    await api?.close();
  });

  const places = async () =>
    (
      await sql<{ n: number }>(
        api.runtime.orm.em.fork(),
        `select count(*)::int as n from places where organisation_id = ?`,
        [org.id],
      )
    )[0]!.n;

  it("the first owner signs in with the CLI's one-time link: a password set, an HttpOnly SameSite=Strict cookie, the link used up", async () => {
    const services = createServices(api.runtime.orm.em.fork(), { config: api.runtime.config });
    const owner = await services.members.add(org.id, {
      name: 'First Owner',
      email: 'First.Owner@console.example',
      role: 'owner',
    });
    const env = { DATABASE_URL: process.env.DATABASE_URL!, PUBLIC_URL: api.baseUrl };
    const printed = await cliJson(env, 'member:login-link', '--org', org.id);
    assert.equal(printed.userId, owner.id);
    assert.equal(printed.email, 'first.owner@console.example');
    const link = new URL(printed.link);
    assert.equal(link.origin, api.baseUrl);
    assert.equal(link.pathname, '/console/set-password');
    // The token travels in the fragment: browsers never send it to a server, nor in a Referer.
    const token = new URLSearchParams(link.hash.slice(1)).get('token')!;
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    // Only the token's hash is stored.
    const [row] = await sql<{ token_hash: string }>(
      api.runtime.orm.em.fork(),
      `select token_hash from member_links where user_id = ?`,
      [owner.id],
    );
    assert.notEqual(row!.token_hash, token);

    const from = { origin: api.baseUrl, 'x-forwarded-for': nextAddress() };
    const inspected = await api.request('POST', '/auth/links/inspect', { body: { token }, headers: from });
    assert.equal(inspected.status, 200, inspected.text);
    assert.deepEqual(inspected.body.data.organisation.id, org.id);
    assert.equal(inspected.body.data.email, 'first.owner@console.example');
    assert.equal(inspected.body.data.kind, 'sign_in');

    const short = await api.request('POST', '/auth/links/redeem', {
      body: { token, password: 'short' },
      headers: from,
    });
    assert.equal(short.status, 422);
    assert.equal(short.body.error.details.fields[0].field, 'password');

    const redeemed = await api.request('POST', '/auth/links/redeem', {
      body: { token, password: 'a long enough passphrase' },
      headers: from,
    });
    assert.equal(redeemed.status, 201, redeemed.text);
    const { line } = sessionCookieOf(redeemed);
    assert.match(line, /^shelf_session=[A-Za-z0-9_-]{43};/);
    assert.match(line, /; httponly/i);
    assert.match(line, /; samesite=strict/i);
    assert.match(line, /; path=\//i);
    assert.doesNotMatch(line, /; secure/i, 'plain HTTP here: Secure only behind TLS');
    assert.equal(redeemed.headers.get('cache-control'), 'no-store');
    const data = redeemed.body.data;
    assert.equal(data.member.userId, owner.id);
    assert.equal(data.access, 'admin');
    assert.match(data.csrfToken, /^[A-Za-z0-9_-]{43}$/);
    // The password is stored as an argon2id hash.
    const [user] = await sql<{ password_hash: string }>(
      api.runtime.orm.em.fork(),
      `select password_hash from users where id = ?`,
      [owner.id],
    );
    assert.match(user!.password_hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

    const again = await api.request('POST', '/auth/links/redeem', {
      body: { token, password: 'another passphrase!' },
      headers: from,
    });
    assert.equal(again.status, 401);
    assert.equal(again.body.error.code, 'INVALID_LINK');

    // And now with e-mail and password (any case of the address).
    const signIn = await api.request('POST', '/auth/sign-in', {
      body: { email: 'FIRST.owner@console.example', password: 'a long enough passphrase' },
      headers: from,
    });
    assert.equal(signIn.status, 201, signIn.text);
    assert.equal(signIn.body.data.organisation.id, org.id);
  });

  it('the session is accepted in place of an API key, through the same rate limits, roles and idempotency', async () => {
    const owner = await signedInMember(api, org, 'owner', { address: nextAddress() });
    const me = await consoleRequest(api, owner, 'GET', '/auth/session');
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.data.member.userId, owner.userId);
    assert.equal(me.body.data.csrfToken, owner.csrf, 'the same token on every read of the session');

    const listed = await consoleRequest(api, owner, 'GET', '/analyses');
    assert.equal(listed.status, 200);
    assert.ok(listed.headers.get('x-ratelimit-limit'), 'rate-limited as a key is');

    const created = await consoleRequest(api, owner, 'POST', '/places', {
      body: { title: 'Console store' },
      headers: { 'idempotency-key': 'console-place-1' },
    });
    assert.equal(created.status, 201, created.text);
    const replay = await consoleRequest(api, owner, 'POST', '/places', {
      body: { title: 'Console store' },
      headers: { 'idempotency-key': 'console-place-1' },
    });
    assert.equal(replay.headers.get('x-idempotent-replayed'), 'true');
    assert.equal(replay.body.data.id, created.body.data.id);

    // An owner administers: API keys over the API, with the session.
    const keys = await consoleRequest(api, owner, 'GET', '/api-keys');
    assert.equal(keys.status, 200);

    // A session-only route refuses API keys.
    const withKey = await api.request('GET', '/auth/session', { key: org.keys.admin });
    assert.equal(withKey.status, 403);
  });

  it('a state change with the session cookie but without the CSRF defence changes nothing', async () => {
    const owner = await signedInMember(api, org, 'owner', { address: nextAddress() });
    const before = await places();
    const body = { title: 'Forged store' };
    const noToken = await consoleRequest(api, owner, 'POST', '/places', { body, csrf: false });
    assert.equal(noToken.status, 403);
    assert.equal(noToken.body.error.details.reason, 'csrf_token');
    const wrongToken = await consoleRequest(api, owner, 'POST', '/places', {
      body,
      headers: { 'x-csrf-token': owner.csrf.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) },
    });
    assert.equal(wrongToken.status, 403);
    const otherSite = await consoleRequest(api, owner, 'POST', '/places', { body, origin: 'https://evil.example' });
    assert.equal(otherSite.status, 403);
    assert.equal(otherSite.body.error.details.reason, 'origin');
    const noOrigin = await consoleRequest(api, owner, 'POST', '/places', { body, origin: null });
    assert.equal(noOrigin.status, 403);
    const revoke = await consoleRequest(api, owner, 'DELETE', `/api-keys/key_01jdq3x4v6m8c9a1b2c3d4e5f6`, {
      csrf: false,
    });
    assert.equal(revoke.status, 403, 'DELETE too');
    assert.equal(await places(), before, 'nothing was created');
    // Nor did they take a write slot: the defence is checked before the window.
    const ok = await consoleRequest(api, owner, 'POST', '/places', { body: { title: 'Real store' } });
    assert.equal(ok.status, 201);
    assert.equal(await places(), before + 1);
  });

  it('owner => admin, member => write, tasker => tasks only; the API refuses what the console hides', async () => {
    const member = await signedInMember(api, org, 'member', { address: nextAddress() });
    assert.equal((await consoleRequest(api, member, 'GET', '/api-keys')).status, 403);
    assert.equal((await consoleRequest(api, member, 'POST', '/api-keys', { body: { role: 'read' } })).status, 403);
    assert.equal(
      (await consoleRequest(api, member, 'POST', '/places', { body: { title: 'Member store' } })).status,
      201,
    );
    assert.equal((await consoleRequest(api, member, 'GET', '/auth/session')).body.data.access, 'write');

    const tasker = await signedInMember(api, org, 'tasker', { address: nextAddress() });
    assert.equal((await consoleRequest(api, tasker, 'GET', '/auth/session')).body.data.access, 'tasks');
    for (const [method, path] of [
      ['GET', '/api-keys'],
      ['GET', '/analyses'],
      ['GET', '/webhooks'],
      ['GET', '/usage'],
      ['POST', '/places'],
    ] as const) {
      const res = await consoleRequest(api, tasker, method, path, {
        body: method === 'POST' ? { title: 'x' } : undefined,
      });
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.error.code, 'FORBIDDEN');
    }
    const task = await api.request('POST', '/tasks', { key: org.keys.write, body: { title: 'Count the beans' } });
    assert.equal(task.status, 201, task.text);
    assert.equal((await consoleRequest(api, tasker, 'GET', '/tasks')).status, 200);
    assert.equal((await consoleRequest(api, tasker, 'GET', `/tasks/${task.body.data.id}`)).status, 200);
    const retitle = await consoleRequest(api, tasker, 'PATCH', `/tasks/${task.body.data.id}`, {
      body: { title: 'Mine now' },
    });
    assert.equal(retitle.status, 403);
    assert.deepEqual(retitle.body.error.details.fields, ['title']);
    const done = await consoleRequest(api, tasker, 'PATCH', `/tasks/${task.body.data.id}`, {
      body: { status: 'completed', notes: 'All there' },
    });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.data.status, 'completed');
    assert.equal(done.body.data.completedBy, tasker.userId, 'the member who did it, not a key');
  });

  it('sign-out ends the session on the server; sign-out everywhere ends every one of the member', async () => {
    const owner = await signedInMember(api, org, 'owner', { address: nextAddress() });
    const out = await consoleRequest(api, owner, 'POST', '/auth/sign-out');
    assert.equal(out.status, 200, out.text);
    assert.match(out.headers.getSetCookie().join(), /shelf_session=;.*expires=Thu, 01 Jan 1970/i, 'the cookie cleared');
    // The old cookie, replayed as it was, opens nothing.
    const replayed = await consoleRequest(api, owner, 'GET', '/analyses');
    assert.equal(replayed.status, 401);
    assert.equal(replayed.body.error.code, 'AUTH_REQUIRED');

    const first = await signedInMember(api, org, 'member', { address: nextAddress() });
    const second = await api.request('POST', '/auth/sign-in', {
      body: { email: first.email, password: first.password },
      headers: { origin: api.baseUrl, 'x-forwarded-for': first.address },
    });
    const other: ConsoleSession = { ...first, cookie: sessionCookieOf(second).pair, csrf: second.body.data.csrfToken };
    const listed = await consoleRequest(api, other, 'GET', '/auth/sessions');
    assert.equal(listed.body.data.length, 2);
    assert.equal(listed.body.data.filter((s: { current: boolean }) => s.current).length, 1);
    const everywhere = await consoleRequest(api, other, 'POST', '/auth/sign-out-everywhere');
    assert.equal(everywhere.body.data.sessionsEnded, 2);
    assert.equal((await consoleRequest(api, first, 'GET', '/analyses')).status, 401);
    assert.equal((await consoleRequest(api, other, 'GET', '/analyses')).status, 401);
  });

  it('a member changes their own password: the current one first, their other sessions end, this one goes on', async () => {
    const member = await signedInMember(api, org, 'tasker', { address: nextAddress() });
    const elsewhere = await api.request('POST', '/auth/sign-in', {
      body: { email: member.email, password: member.password },
      headers: { origin: api.baseUrl, 'x-forwarded-for': member.address },
    });
    const other: ConsoleSession = {
      ...member,
      cookie: sessionCookieOf(elsewhere).pair,
      csrf: elsewhere.body.data.csrfToken,
    };
    const change = (body: unknown, as = member, opts: { csrf?: boolean } = {}) =>
      consoleRequest(api, as, 'POST', '/auth/password', { body, ...opts });
    const newPassword = 'a brand new passphrase';

    const wrong = await change({ currentPassword: 'not my password at all', newPassword });
    assert.equal(wrong.status, 422, wrong.text);
    assert.equal(wrong.body.error.code, 'VALIDATION_FAILED');
    assert.deepEqual(
      wrong.body.error.details.fields.map((f: { field: string }) => f.field),
      ['currentPassword'],
    );
    const short = await change({ currentPassword: member.password, newPassword: 'short' });
    assert.equal(short.status, 422);
    assert.equal(short.body.error.details.fields[0].field, 'newPassword');
    const same = await change({ currentPassword: member.password, newPassword: member.password });
    assert.equal(same.status, 422);
    assert.equal(same.body.error.details.fields[0].field, 'newPassword');
    assert.equal(
      (await change({ currentPassword: member.password, newPassword }, member, { csrf: false })).status,
      403,
    );
    const withKey = await api.request('POST', '/auth/password', {
      key: org.keys.admin,
      body: { currentPassword: member.password, newPassword },
    });
    assert.equal(withKey.status, 403, 'a session only');
    assert.equal((await consoleRequest(api, other, 'GET', '/auth/session')).status, 200, 'nothing changed yet');

    const changed = await change({ currentPassword: member.password, newPassword });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.data, { otherSessionsEnded: 1 });
    assert.equal((await consoleRequest(api, member, 'GET', '/tasks')).status, 200, 'this session goes on');
    assert.equal((await consoleRequest(api, other, 'GET', '/tasks')).status, 401, 'the other one ended');
    const [user] = await sql<{ password_hash: string }>(
      api.runtime.orm.em.fork(),
      `select password_hash from users where id = ?`,
      [member.userId],
    );
    assert.match(user!.password_hash, /^\$argon2id\$/);
    const signIn = (password: string) =>
      api.request('POST', '/auth/sign-in', {
        body: { email: member.email, password },
        headers: { origin: api.baseUrl, 'x-forwarded-for': nextAddress() },
      });
    assert.equal((await signIn(member.password)).status, 401, 'the old password is gone');
    assert.equal((await signIn(newPassword)).status, 201);
  });

  it('changing a password is throttled as a sign-in is: past the failures a minute, even the right one waits', async () => {
    const member = await signedInMember(api, org, 'member', { address: nextAddress() });
    const change = (currentPassword: string) =>
      consoleRequest(api, member, 'POST', '/auth/password', {
        body: { currentPassword, newPassword: 'another new passphrase' },
      });
    // SIGN_IN_FAILURES_PER_MINUTE (5) wrong current passwords: the account's own budget, as sign-in counts it.
    for (let i = 0; i < 5; i++) assert.equal((await change(`guess number ${i}`)).status, 422);
    const throttled = await change(member.password);
    assert.equal(throttled.status, 429, throttled.text);
    assert.ok(Number(throttled.headers.get('retry-after')) > 0);
    // A sign-in of the same account waits too: one budget for guessing its password.
    const signIn = await api.request('POST', '/auth/sign-in', {
      body: { email: member.email, password: member.password },
      headers: { origin: api.baseUrl, 'x-forwarded-for': nextAddress() },
    });
    assert.equal(signIn.status, 429);
  });

  it('a removed member, or a demoted one, is out or reduced from the very next request', async () => {
    const owner = await signedInMember(api, org, 'owner', { address: nextAddress() });
    const member = await signedInMember(api, org, 'member', { address: nextAddress() });
    assert.equal(
      (await consoleRequest(api, owner, 'PATCH', `/members/${owner.userId}`, { body: { role: 'member' } })).status,
      200,
    );
    assert.equal((await consoleRequest(api, owner, 'GET', '/api-keys')).status, 403, 'demoted: no longer admin');
    assert.equal((await api.request('DELETE', `/members/${member.userId}`, { key: org.keys.admin })).status, 200);
    assert.equal((await consoleRequest(api, member, 'GET', '/analyses')).status, 401);
  });

  it('wrong passwords and unknown addresses answer alike; sign-in is throttled per account and per address', async () => {
    const member = await signedInMember(api, org, 'member', { address: nextAddress() });
    const from = nextAddress();
    const attempt = (email: string, password: string, at = from) =>
      api.request('POST', '/auth/sign-in', {
        body: { email, password },
        headers: { origin: api.baseUrl, 'x-forwarded-for': at },
      });
    const wrong = await attempt(member.email, 'not the password at all');
    const unknown = await attempt('nobody@console.example', 'not the password at all');
    assert.equal(wrong.status, 401);
    assert.deepEqual(unknown.body, wrong.body);
    assert.equal(wrong.body.error.code, 'INVALID_CREDENTIALS');

    // Per account (SIGN_IN_FAILURES_PER_MINUTE, 5): failures from several addresses add up, and past
    // the limit even the right password waits.
    for (let i = 0; i < 4; i++) assert.equal((await attempt(member.email, `guess ${i}`, nextAddress())).status, 401);
    const throttled = await attempt(member.email, member.password, nextAddress());
    assert.equal(throttled.status, 429);
    assert.equal(throttled.body.error.code, 'RATE_LIMITED');
    assert.ok(Number(throttled.headers.get('retry-after')) > 0);

    // Per address (AUTH_FAILURES_PER_MINUTE, 30, the budget bad API keys count against too): an
    // address past it is refused before its body is read, whichever account it tries.
    const guesser = nextAddress();
    for (let i = 0; i < 30; i++) await attempt(`nobody-${i}@console.example`, 'guess', guesser);
    const refused = await api.request('POST', '/auth/sign-in', {
      rawBody: '{"not json',
      headers: { origin: api.baseUrl, 'x-forwarded-for': guesser, 'content-type': 'application/json' },
    });
    assert.equal(refused.status, 429);
    const other = await signedInMember(api, org, 'member', { address: nextAddress() });
    assert.equal((await attempt(other.email, other.password, guesser)).status, 429);
    assert.equal((await attempt(other.email, other.password, nextAddress())).status, 201);
  });

  it("sign-in and links are refused from another site's page", async () => {
    const member = await signedInMember(api, org, 'member', { address: nextAddress() });
    const res = await api.request('POST', '/auth/sign-in', {
      body: { email: member.email, password: member.password },
      headers: { origin: 'https://evil.example', 'x-forwarded-for': member.address },
    });
    assert.equal(res.status, 403);
    assert.equal(res.headers.getSetCookie().length, 0);
  });

  it('an invitation carries a link where the invited person names themselves, sets a password and is signed in', async () => {
    const owner = await signedInMember(api, org, 'owner', { address: nextAddress() });
    const invited = await consoleRequest(api, owner, 'POST', '/members/invite', {
      body: { email: 'New.Person@console.example', role: 'tasker' },
    });
    assert.equal(invited.status, 201, invited.text);
    // No SMTP_URL: nothing is mailed, the answer carries the link to pass on.
    assert.equal(invited.body.data.mailedTo, null);
    assert.equal(invited.body.data.mailError, null);
    const link = new URL(invited.body.data.link);
    assert.equal(`${link.origin}${link.pathname}`, `${api.baseUrl}/console/set-password`);
    assert.ok(Date.parse(invited.body.data.linkExpiresAt) > Date.now() + 6 * 24 * 3600 * 1000);
    const token = new URLSearchParams(link.hash.slice(1)).get('token')!;
    const from = { origin: api.baseUrl, 'x-forwarded-for': nextAddress() };
    assert.equal(
      (await api.request('POST', '/auth/links/inspect', { body: { token }, headers: from })).body.data.kind,
      'invitation',
    );
    const nameless = await api.request('POST', '/auth/links/redeem', {
      body: { token, password: 'tasker passphrase 1' },
      headers: from,
    });
    assert.equal(nameless.status, 422);
    const joined = await api.request('POST', '/auth/links/redeem', {
      body: { token, password: 'tasker passphrase 1', name: 'New Person' },
      headers: from,
    });
    assert.equal(joined.status, 201, joined.text);
    assert.equal(joined.body.data.member.email, 'new.person@console.example');
    assert.equal(joined.body.data.member.role, 'tasker');
    assert.equal(joined.body.data.access, 'tasks');
    const members = await api.request('GET', '/members?search=new.person', { key: org.keys.read });
    assert.equal(members.body.data.length, 1);

    // A new link for an invitation replaces the one before; the CLI makes them too.
    const second = await consoleRequest(api, owner, 'POST', '/members/invite', {
      body: { email: 'later@console.example' },
    });
    const firstToken = new URLSearchParams(new URL(second.body.data.link).hash.slice(1)).get('token')!;
    const env = { DATABASE_URL: process.env.DATABASE_URL!, PUBLIC_URL: api.baseUrl };
    const fresh = await cliJson(env, 'invite:link', '--org', org.id, '--invitation', second.body.data.invitationId);
    assert.equal(fresh.email, 'later@console.example');
    assert.equal(
      (await api.request('POST', '/auth/links/inspect', { body: { token: firstToken }, headers: from })).status,
      401,
    );
    const freshToken = new URLSearchParams(new URL(fresh.link).hash.slice(1)).get('token')!;
    assert.equal(
      (await api.request('POST', '/auth/links/inspect', { body: { token: freshToken }, headers: from })).status,
      200,
    );
    // An unknown organisation or member is the CLI's usual refusal.
    const refused = await runCli(env, 'member:login-link', '--org', 'org_nope');
    assert.equal(refused.code, 2, refused.stderr);
  });

  it('one e-mail address in two organisations: the password decides, and the caller chooses when both match', async () => {
    const other = await createTestOrg(api.runtime);
    const mine = await signedInMember(api, org, 'member', { address: nextAddress() });
    const services = createServices(api.runtime.orm.em.fork(), { config: api.runtime.config });
    const there = await services.members.add(other.id, { name: 'Same person', email: mine.email, role: 'owner' });
    const { token } = await services.sessions.createSignInLink(other.id, there.id);
    const from = { origin: api.baseUrl, 'x-forwarded-for': nextAddress() };
    await api.request('POST', '/auth/links/redeem', { body: { token, password: mine.password }, headers: from });
    const both = await api.request('POST', '/auth/sign-in', {
      body: { email: mine.email, password: mine.password },
      headers: from,
    });
    assert.equal(both.status, 409);
    assert.deepEqual(
      both.body.error.details.organisations.map((o: { id: string }) => o.id).sort(),
      [org.id, other.id].sort(),
    );
    const chosen = await api.request('POST', '/auth/sign-in', {
      body: { email: mine.email, password: mine.password, organisationId: other.id },
      headers: from,
    });
    assert.equal(chosen.status, 201);
    assert.equal(chosen.body.data.organisation.id, other.id);
    assert.equal(chosen.body.data.access, 'admin');
  });
});

describe('console sessions expire', () => {
  it('after SESSION_IDLE_TIMEOUT_MS unused, and SESSION_MAX_AGE_MS after sign-in however active', async () => {
    const api = await startTestApi({ TRUST_PROXY: true, SESSION_IDLE_TIMEOUT_MS: 1500, SESSION_MAX_AGE_MS: 4000 });
    try {
      const org = await createTestOrg(api.runtime);
      const idle = await signedInMember(api, org, 'member', { address: '203.0.113.200' });
      const busy = await signedInMember(api, org, 'member', { address: '203.0.113.201' });
      const started = Date.now();
      // `busy` is used every half second; `idle` is left alone.
      while (Date.now() - started < 2500) {
        assert.equal((await consoleRequest(api, busy, 'GET', '/places')).status, 200);
        await new Promise((r) => setTimeout(r, 500));
      }
      assert.equal((await consoleRequest(api, idle, 'GET', '/places')).status, 401, 'idle past its timeout');
      while (Date.now() - started < 4200) {
        await consoleRequest(api, busy, 'GET', '/places');
        await new Promise((r) => setTimeout(r, 400));
      }
      assert.equal((await consoleRequest(api, busy, 'GET', '/places')).status, 401, 'past its absolute end');
    } finally {
      await api.close();
    }
  });

  it('behind TLS the cookie is __Host- and Secure', async () => {
    const api = await startTestApi({ TRUST_PROXY: true });
    try {
      const org = await createTestOrg(api.runtime);
      const services = createServices(api.runtime.orm.em.fork(), { config: api.runtime.config });
      const user = await services.members.add(org.id, { name: 'TLS', email: 'tls@console.example', role: 'member' });
      const { token } = await services.sessions.createSignInLink(org.id, user.id);
      const httpsOrigin = api.baseUrl.replace('http:', 'https:');
      const res = await api.request('POST', '/auth/links/redeem', {
        body: { token, password: 'secure passphrase' },
        headers: { origin: httpsOrigin, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.210' },
      });
      assert.equal(res.status, 201, res.text);
      const { line, pair } = sessionCookieOf(res);
      assert.match(line, /^__Host-shelf_session=/);
      assert.match(line, /; secure/i);
      // Over TLS only the __Host- cookie is read.
      const read = await api.request('GET', '/auth/session', {
        headers: { cookie: pair, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.210' },
      });
      assert.equal(read.status, 200);
    } finally {
      await api.close();
    }
  });
});
