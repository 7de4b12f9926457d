import { CsrfError, SessionRequiredError } from '../../lib/errors.js';
import { AddressOverBudgetError, type AddressBudget } from '../api-keys/key-gate.js';
import { limitsFor, type RateLimitCategory } from '../organisations/plans.js';
import type { RateLimiter, RateLimitResult } from '../rate-limits/rate-limiter.js';
import { csrfTokenMatches, type SessionOwner, type SessionService } from './session.service.js';

/**
 * The defence a state change made with a session cookie must carry: the request came from the
 * service's own pages (`sameOrigin`: its Origin header is the service's), and it carries the
 * session's CSRF token in a header, which another site can neither read nor make.
 */
export type CsrfCheck = { required: boolean; sameOrigin: boolean; token: string | undefined };

/**
 * The console's door, beside KeyGate's for API keys: the same steps in the same order. The client
 * address's failed-authentication budget first; then the session (401 if it has ended); then, for a
 * state change, the CSRF defence (403, before anything is taken or changed); then the rate-limit
 * slots of the member's own windows (`key:<usr_…>:<category>`), with the plan's limits.
 */
export class SessionGate {
  constructor(
    private readonly sessions: SessionService,
    private readonly limiter: RateLimiter,
  ) {}

  async enter(
    token: string,
    csrf: CsrfCheck,
    category: RateLimitCategory,
    weight: number,
    address: AddressBudget,
  ): Promise<{ owner: SessionOwner; rate: RateLimitResult }> {
    const window = await this.limiter.check(address.bucket, address.limit);
    if (!window.allowed) throw new AddressOverBudgetError(window);
    const owner = await this.sessions.authenticate(token);
    if (!owner) throw new SessionRequiredError();
    if (csrf.required) {
      if (!csrf.sameOrigin) throw new CsrfError('origin');
      if (!csrfTokenMatches(token, csrf.token)) throw new CsrfError('csrf_token');
    }
    const limit = limitsFor(owner.plan, owner.customLimits).rateLimits[category];
    const bucket = `key:${owner.userId}:${category}`;
    const rate =
      weight > 0 ? await this.limiter.consume(bucket, limit, weight) : await this.limiter.check(bucket, limit, 0);
    return { owner, rate };
  }
}
