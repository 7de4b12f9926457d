import assert from 'node:assert/strict';
import type { MemberRole } from '../../src/modules/members/member.entity.js';
import { createServices } from '../../src/services.js';
import type { TestApi, TestResponse } from './api.js';
import type { TestOrg } from './fixtures.js';

/** A console session as a browser holds it: the cookie, the CSRF token it was given, and where it came from. */
export type ConsoleSession = {
  cookie: string;
  csrf: string;
  email: string;
  password: string;
  userId: string;
  /** Sent as X-Forwarded-For (the test API trusts a proxy): each test's own address, so budgets stay apart. */
  address: string;
};

let counter = 0;

/** The `name=value` of the session cookie a response sets, and the whole Set-Cookie line. */
export function sessionCookieOf(res: TestResponse): { pair: string; line: string } {
  const line = res.headers.getSetCookie().find((c) => /^(__Host-)?shelf_session=/.test(c));
  assert.ok(line, `a session cookie is set: ${res.headers.getSetCookie().join(' | ')}`);
  return { pair: line.split(';')[0]!, line };
}

/** A request made as the console makes it: the cookie, the service's own Origin, the CSRF token on changes. */
export function consoleRequest(
  api: TestApi,
  session: Pick<ConsoleSession, 'cookie' | 'csrf' | 'address'>,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string>; csrf?: boolean; origin?: string | null } = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { cookie: session.cookie, 'x-forwarded-for': session.address };
  if (opts.origin !== null) headers.origin = opts.origin ?? api.baseUrl;
  if (method !== 'GET' && opts.csrf !== false) headers['x-csrf-token'] = session.csrf;
  return api.request(method, path, { body: opts.body, headers: { ...headers, ...opts.headers } });
}

/**
 * A member of `org` with a password, signed in: added as the CLI adds one, given a sign-in link, the
 * link redeemed over HTTP as the console's set-password page does.
 */
export async function signedInMember(
  api: TestApi,
  org: Pick<TestOrg, 'id'>,
  role: MemberRole,
  opts: { address?: string } = {},
): Promise<ConsoleSession> {
  const n = ++counter;
  const email = `member-${process.pid}-${n}@console.example`;
  const password = `correct horse ${n} battery`;
  const services = createServices(api.runtime.orm.em.fork(), { config: api.runtime.config });
  const user = await services.members.add(org.id, { name: `Member ${n}`, email, role });
  const { token } = await services.sessions.createSignInLink(org.id, user.id);
  const address = opts.address ?? `198.18.${(process.pid % 200) + 1}.${n % 250}`;
  const res = await api.request('POST', '/auth/links/redeem', {
    body: { token, password },
    headers: { origin: api.baseUrl, 'x-forwarded-for': address },
  });
  assert.equal(res.status, 201, res.text);
  return {
    cookie: sessionCookieOf(res).pair,
    csrf: res.body.data.csrfToken,
    email,
    password,
    userId: user.id,
    address,
  };
}
