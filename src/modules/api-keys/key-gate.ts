import type { EntityManager } from '@mikro-orm/postgresql';
import { GroupCommit } from '../../lib/group-commit.js';
import { AuthRequiredError, InvalidApiKeyError } from '../../lib/errors.js';
import { limitsFor, PLANS, type RateLimitCategory } from '../organisations/plans.js';
import type { RateLimiter, RateLimitResult } from '../rate-limits/rate-limiter.js';
import { ApiKey, type ApiKeyRole } from './api-key.entity.js';
import { API_KEY_PATTERN, hashApiKey } from './api-key-secret.js';
import { type ApiKeyRepository, type KeyOwner } from './api-key.repository.js';
import type { PlanTier } from '../organisations/organisation.entity.js';

const TOUCH_EVERY_MS = 60_000;

/** The plan table's rate limits, once, as the JSON the database function takes. */
const PLAN_LIMITS_JSON = JSON.stringify(
  Object.fromEntries(Object.entries(PLANS).map(([tier, limits]) => [tier, limits.rateLimits])),
);

/**
 * A client address's failed-authentication window: its bucket (`authfail:<address key>`) and how many
 * failures a minute it allows. An address with no room for one more is refused before anything else.
 */
export type AddressBudget = { bucket: string; limit: number };

/** The client address is past its failed-authentication budget: refused before its key is looked up. */
export class AddressOverBudgetError extends Error {
  constructor(readonly window: RateLimitResult) {
    super('this address is past its failed-authentication budget');
  }
}

export type Take = {
  em: EntityManager;
  hash: string;
  category: RateLimitCategory;
  weight: number;
  address: AddressBudget | null;
};

/** Orders takes by bucket (key hash, then category), and takes of one bucket in arrival order. */
function lockOrder(items: Take[]): number[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return items
    .map((_, i) => i)
    .sort((i, j) => cmp(items[i]!.hash, items[j]!.hash) || cmp(items[i]!.category, items[j]!.category) || i - j);
}

/**
 * One statement for a group of takes, answered in the group's order. The takes are made in bucket
 * order, not arrival order: a statement holds each bucket's row lock until it ends, so two processes
 * whose groups name the same buckets in opposite orders would each hold a row the other waits for;
 * PostgreSQL then aborts one statement as a deadlock (after `deadlock_timeout`, 1 s), and every take of
 * that group is made again alone. In one order for everybody, the second waits for the first instead.
 * Takes of the same bucket keep their arrival order, so each request still gets the count, the 429
 * or the 401 it would have got alone; the order between buckets changes no answer.
 */
export async function takeGroup(em: EntityManager, items: Take[]): Promise<(TakeRow | null)[]> {
  const order = lockOrder(items);
  const rows = await em
    .getRepository<ApiKey, ApiKeyRepository>(ApiKey)
    .takeMany<TakeRow & { n: number }>([
      order.map((i) => items[i]!.hash),
      order.map((i) => items[i]!.category),
      order.map((i) => items[i]!.weight),
      order.map((i) => items[i]!.address?.bucket ?? null),
      order.map((i) => items[i]!.address?.limit ?? 0),
      PLAN_LIMITS_JSON,
    ]);
  // Row n answers the n-th take of the statement, which is take order[n - 1] of the group.
  const answers: (TakeRow | null)[] = items.map(() => null);
  for (const row of rows) answers[order[row.n - 1]!] = row;
  return answers;
}

/** One flush of the gate's grouped takes (KeyGate.takes): a lone take in the one-take statement. */
async function flushTakes(items: Take[]): Promise<(TakeRow | null)[]> {
  if (items.length === 1) {
    const { em, hash, category, weight, address } = items[0]!;
    const [row] = await em
      .getRepository<ApiKey, ApiKeyRepository>(ApiKey)
      .takeOne<TakeRow>([hash, category, weight, PLAN_LIMITS_JSON, address?.bucket ?? null, address?.limit ?? 0]);
    return [row ?? null];
  }
  return takeGroup(items[0]!.em, items);
}

export type TakeRow = {
  api_key_id: string;
  organisation_id: string;
  role: ApiKeyRole;
  plan: PlanTier;
  custom_limits: KeyOwner['customLimits'];
  rate_limit: number;
  allowed: boolean;
  used: number;
  reset_at: string | number;
  retry_after: number;
  /** The address was past its budget: no key looked up, the other columns its window's. */
  address_refused: boolean;
};

function rateOf(row: Pick<TakeRow, 'allowed' | 'rate_limit' | 'used' | 'reset_at' | 'retry_after'>): RateLimitResult {
  return {
    allowed: row.allowed,
    limit: row.rate_limit,
    remaining: Math.max(0, row.rate_limit - row.used),
    resetAt: Number(row.reset_at),
    retryAfter: row.retry_after,
  };
}

/**
 * Who is calling, and may they make one more request of this category: the first thing every API
 * request does, after one check: is the client address past its failed-authentication budget? Keys
 * are looked up on every request, never cached, so a revoked key fails on the very next request on
 * every process. With the PostgreSQL rate-limit store the address check, the lookup and the take are
 * one function call (`api_key_take`), one round trip shared by the requests that arrive together; with
 * Redis, two scripts and one query.
 */
export class KeyGate {
  private readonly repo: ApiKeyRepository;
  /** When this gate (one per process: src/services.ts) last stamped each key's lastUsedAt. */
  private readonly lastTouched = new Map<string, number>();
  /**
   * The PostgreSQL store's takes, grouped (lib/group-commit.ts, no linger): the requests read in one
   * turn of the event loop go together, and a request arriving while this process's previous take is
   * in flight waits for it, then goes with the others that waited in the next statement. Under load
   * that is one round trip (one socket write, one statement for PostgreSQL to run) for many requests
   * instead of one each; a lone request goes at the end of its turn, without a timer. The group is
   * the gate's, and the gate talks to one database (its entity manager's), so one key serves.
   */
  private readonly takes = new GroupCommit<Take, TakeRow | null>((_key, items) => flushTakes(items), {
    maxGroup: 64,
  });

  constructor(
    private readonly em: EntityManager,
    private readonly limiter: RateLimiter,
  ) {
    this.repo = em.getRepository<ApiKey, ApiKeyRepository>(ApiKey);
  }

  private hashOf(header: string | undefined): string {
    const match = /^Bearer (\S+)$/.exec(header?.trim() ?? '');
    const token = match?.[1];
    if (!token || !API_KEY_PATTERN.test(token)) throw new AuthRequiredError();
    return hashApiKey(token);
  }

  /** At most one lastUsedAt stamp a minute per key and process, decided without a round trip. */
  private touch(apiKeyId: string) {
    const now = Date.now();
    if ((this.lastTouched.get(apiKeyId) ?? 0) >= now - TOUCH_EVERY_MS) return;
    this.lastTouched.set(apiKeyId, now);
    if (this.lastTouched.size > 100_000) this.lastTouched.clear();
    void this.repo.touchLastUsed(apiKeyId).catch(() => undefined);
  }

  /** Resolves an Authorization header to the key's owner, or throws the matching 401. */
  async authenticate(header: string | undefined): Promise<KeyOwner> {
    const owner = await this.repo.findActiveOwner(this.hashOf(header));
    if (!owner) throw new InvalidApiKeyError();
    this.touch(owner.apiKeyId);
    return owner;
  }

  /**
   * Authenticates and takes `weight` slots of the key's `category` window (all or nothing); weight 0
   * only authenticates (the caller takes its slots later, `take`). With `address`, the client
   * address's failed-authentication budget is checked first: past it, AddressOverBudgetError, and
   * the key is not looked up.
   */
  async enter(
    header: string | undefined,
    category: RateLimitCategory,
    weight: number,
    address: AddressBudget | null = null,
  ): Promise<{ owner: KeyOwner; rate: RateLimitResult }> {
    const hash = this.hashOf(header);
    if (this.limiter.usesRedis) {
      if (address) {
        const window = await this.limiter.check(address.bucket, address.limit);
        if (!window.allowed) throw new AddressOverBudgetError(window);
      }
      const owner = await this.repo.findActiveOwner(hash);
      if (!owner) throw new InvalidApiKeyError();
      this.touch(owner.apiKeyId);
      const limit = limitsFor(owner.plan, owner.customLimits).rateLimits[category];
      const bucket = `key:${owner.apiKeyId}:${category}`;
      return {
        owner,
        rate:
          weight > 0 ? await this.limiter.consume(bucket, limit, weight) : await this.limiter.check(bucket, limit, 0),
      };
    }
    const row = await this.takes.submit('takes', { em: this.em, hash, category, weight, address });
    if (row?.address_refused) throw new AddressOverBudgetError(rateOf(row));
    if (!row) throw new InvalidApiKeyError();
    this.touch(row.api_key_id);
    const owner: KeyOwner = {
      apiKeyId: row.api_key_id,
      organisationId: row.organisation_id,
      role: row.role,
      plan: row.plan,
      customLimits: row.custom_limits,
    };
    return { owner, rate: rateOf(row) };
  }

  /**
   * Takes `weight` slots of an authenticated caller's `category` window (after `enter` with weight 0):
   * the window of the API key, or of the member when the caller is a console session (`actorId`).
   */
  take(
    caller: { actorId: string; plan: PlanTier; customLimits: KeyOwner['customLimits'] },
    category: RateLimitCategory,
    weight: number,
  ): Promise<RateLimitResult> {
    const limit = limitsFor(caller.plan, caller.customLimits).rateLimits[category];
    return this.limiter.consume(`key:${caller.actorId}:${category}`, limit, weight);
  }
}
