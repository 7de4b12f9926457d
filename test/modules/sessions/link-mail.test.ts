import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseConfig } from '../../../src/config.js';
import { createServices } from '../../../src/services.js';
import { startTestApi, type TestApi } from '../../helpers/api.js';
import { cliJson } from '../../helpers/cli.js';
import { consoleRequest, signedInMember } from '../../helpers/console-session.js';
import { createTestOrg, type TestOrg } from '../../helpers/fixtures.js';
import { linkIn, startSmtpServer } from '../../helpers/smtp.js';
import { uniquePrefix } from '../../helpers/worker.js';

const FROM = 'Shelf test <console@shelf.example>';

describe('with SMTP_URL set, console links are mailed to their person (a real SMTP server on loopback)', () => {
  let api: TestApi;
  let org: TestOrg;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let address = 0;
  const nextAddress = () => `203.0.114.${++address}`;
  const tokenOf = (link: string) => new URLSearchParams(new URL(link).hash.slice(1)).get('token')!;

  before(async () => {
    smtp = await startSmtpServer({ user: 'shelf', pass: 's3cret pass', refuse: /^bounce@/ });
    api = await startTestApi({
      TASK_QUEUE_PREFIX: uniquePrefix('link-mail'),
      TRUST_PROXY: true,
      SMTP_URL: smtp.url,
      SMTP_FROM: FROM,
    });
    org = await createTestOrg(api.runtime, { name: 'Mail Grocers' });
  });
  after(async () => {
    await api?.close();
    await smtp?.close();
  });

  it('an invitation is mailed to the invited person, and left out of the answer; its link lets them join', async () => {
    const owner = await signedInMember(api, org, 'owner', { address: nextAddress() });
    const before = smtp.received.length;
    const invited = await consoleRequest(api, owner, 'POST', '/members/invite', {
      body: { email: 'Mailed.Person@console.example', role: 'member' },
    });
    assert.equal(invited.status, 201, invited.text);
    assert.equal(invited.body.data.link, null, 'only its reader holds the link');
    assert.equal(invited.body.data.mailedTo, 'mailed.person@console.example');
    assert.equal(invited.body.data.mailError, null);
    assert.ok(Date.parse(invited.body.data.linkExpiresAt) > Date.now() + 6 * 24 * 3600 * 1000);

    assert.equal(smtp.received.length, before + 1);
    const mail = smtp.received.at(-1)!;
    assert.deepEqual(mail.to, ['mailed.person@console.example']);
    assert.equal(mail.from, 'console@shelf.example');
    assert.equal(mail.user, 'shelf', "signed in with SMTP_URL's credentials");
    assert.match(mail.headers.from!, /Shelf test/);
    assert.match(mail.headers.subject!, /Mail Grocers/);
    const link = linkIn(mail);
    assert.ok(link.startsWith(`${api.baseUrl}/console/set-password#token=`), link);
    const joined = await api.request('POST', '/auth/links/redeem', {
      body: { token: tokenOf(link), password: 'mailed passphrase 1', name: 'Mailed Person' },
      headers: { origin: api.baseUrl, 'x-forwarded-for': nextAddress() },
    });
    assert.equal(joined.status, 201, joined.text);
    assert.equal(joined.body.data.member.email, 'mailed.person@console.example');
  });

  it("an owner's reset link and a new invitation link are mailed too, each replacing the one before", async () => {
    const owner = await signedInMember(api, org, 'owner', { address: nextAddress() });
    const member = await signedInMember(api, org, 'member', { address: nextAddress() });
    const reset = await consoleRequest(api, owner, 'POST', `/members/${member.userId}/sign-in-link`);
    assert.equal(reset.status, 200, reset.text);
    assert.deepEqual(
      { link: reset.body.data.link, mailedTo: reset.body.data.mailedTo },
      { link: null, mailedTo: member.email },
    );
    const resetMail = smtp.received.at(-1)!;
    assert.deepEqual(resetMail.to, [member.email]);
    assert.match(resetMail.headers.subject!, /Set your password/);
    const from = { origin: api.baseUrl, 'x-forwarded-for': nextAddress() };
    const inspected = await api.request('POST', '/auth/links/inspect', {
      body: { token: tokenOf(linkIn(resetMail)) },
      headers: from,
    });
    assert.equal(inspected.body.data.kind, 'sign_in');

    const invited = await consoleRequest(api, owner, 'POST', '/members/invite', {
      body: { email: 'later.mailed@console.example' },
    });
    const first = linkIn(smtp.received.at(-1)!);
    const again = await consoleRequest(
      api,
      owner,
      'POST',
      `/members/invitations/${invited.body.data.invitationId}/link`,
    );
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.link, null);
    assert.equal(again.body.data.mailedTo, 'later.mailed@console.example');
    const second = linkIn(smtp.received.at(-1)!);
    assert.notEqual(second, first);
    assert.equal(
      (await api.request('POST', '/auth/links/inspect', { body: { token: tokenOf(first) }, headers: from })).status,
      401,
      'the earlier link stopped working',
    );
  });

  it('a mail the server refuses: the invitation stands and the answer hands the link back, saying why', async () => {
    const before = smtp.received.length;
    const invited = await api.request('POST', '/members/invite', {
      key: org.keys.admin,
      body: { email: 'bounce@console.example' },
    });
    assert.equal(invited.status, 201, invited.text);
    assert.equal(invited.body.data.mailedTo, null);
    assert.match(invited.body.data.mailError, /did not take the mail to bounce@console\.example/);
    assert.doesNotMatch(invited.body.data.mailError, /550|127\.0\.0\.1/, "the server's own words stay in the log");
    assert.equal(smtp.received.length, before);
    const inspected = await api.request('POST', '/auth/links/inspect', {
      body: { token: tokenOf(invited.body.data.link) },
      headers: { origin: api.baseUrl, 'x-forwarded-for': nextAddress() },
    });
    assert.equal(inspected.status, 200, inspected.text);
  });

  it("the CLI's links are mailed as well, and still printed for the operator", async () => {
    const services = createServices(api.runtime.orm.em.fork(), { config: api.runtime.config });
    const other = await createTestOrg(api.runtime, { name: 'CLI Mail Org' });
    await services.members.add(other.id, { name: 'First Owner', email: 'first.owner@mail.example', role: 'owner' });
    const env = { DATABASE_URL: process.env.DATABASE_URL!, PUBLIC_URL: api.baseUrl, SMTP_URL: smtp.url };
    const printed = await cliJson(env, 'member:login-link', '--org', other.id);
    assert.equal(printed.mailedTo, 'first.owner@mail.example');
    assert.equal(printed.mailError, null);
    const mail = smtp.received.at(-1)!;
    assert.deepEqual(mail.to, ['first.owner@mail.example']);
    assert.match(mail.headers.subject!, /CLI Mail Org/);
    assert.equal(linkIn(mail), printed.link);

    const invitation = await services.members.invite(other.id, { email: 'cli.invited@mail.example', role: 'tasker' });
    const relinked = await cliJson(env, 'invite:link', '--org', other.id, '--invitation', invitation.id);
    assert.equal(relinked.mailedTo, 'cli.invited@mail.example');
    assert.equal(linkIn(smtp.received.at(-1)!), relinked.link);
  });

  it('SMTP_URL must be an smtp:// or smtps:// URL', () => {
    assert.throws(() => parseConfig({ NODE_ENV: 'test', SMTP_URL: 'http://mail.example' }), /SMTP_URL/);
    assert.equal(
      parseConfig({ NODE_ENV: 'test', SMTP_URL: 'smtps://u:p@mail.example:465' }).SMTP_URL,
      'smtps://u:p@mail.example:465',
    );
  });
});
