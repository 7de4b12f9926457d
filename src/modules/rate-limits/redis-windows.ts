import { Redis } from 'ioredis';
import type { Logger } from '../../lib/logger.js';

/** How long a take may wait on Redis before its window is kept in PostgreSQL instead (a Redis that never answers). */
const COMMAND_TIMEOUT_MS = 500;

/**
 * The same windows as `rate_limit_take` in PostgreSQL (61 one-second counters, a hit counts while
 * now - 60 <= its second), kept in a Redis hash per bucket and updated by one Lua script, which
 * Redis runs atomically: exact across API processes without locks. Redis's own clock is used, so
 * processes with skewed clocks still agree.
 */
const TAKE = `
local t = redis.call('TIME')
local now_s = tonumber(t[1])
local now_ms = now_s * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local weight = tonumber(ARGV[2])
local take = ARGV[3] == '1'
local flat = redis.call('HGETALL', KEYS[1])
local live = {}
local total = 0
local oldest = nil
for i = 1, #flat, 2 do
  local s = tonumber(flat[i])
  local c = tonumber(flat[i + 1])
  if s >= now_s - 60 then
    table.insert(live, { s, c })
    total = total + c
    if oldest == nil or s < oldest then oldest = s end
  elseif take then
    redis.call('HDEL', KEYS[1], flat[i])
  end
end
local ok = total + weight <= limit
if take and ok then
  redis.call('HINCRBY', KEYS[1], now_s, weight)
  redis.call('EXPIRE', KEYS[1], 62)
  total = total + weight
  if oldest == nil or now_s < oldest then oldest = now_s end
end
local wait = 0
if not ok then
  if weight > limit then
    wait = 60
  else
    table.sort(live, function(a, b) return a[1] < b[1] end)
    local need = total + weight - limit
    for _, e in ipairs(live) do
      need = need - e[2]
      if need <= 0 then
        wait = math.max(1, math.ceil(((e[1] + 61) * 1000 - now_ms) / 1000))
        break
      end
    end
  end
end
return { ok and 1 or 0, total, (oldest or now_s) + 61, wait }
`;

export type WindowRow = { allowed: boolean; used: number; reset_at: number; retry_after: number };

/**
 * The process's Redis rate-limit windows (REDIS_URL): one client, made by whoever owns the process's
 * services (src/runtime.ts) and closed by it. It connects on its first take, so a process whose
 * services never take (a worker) never connects.
 */
export class RedisWindows {
  private connected: Redis | undefined;
  /** Since when Redis has been unusable (null while it answers): the outage is logged once, not per request. */
  private downSince: number | null = null;

  constructor(
    private readonly url: string,
    private readonly logger?: Logger,
  ) {}

  private get client(): Redis {
    if (this.connected) return this.connected;
    const client = new Redis(this.url, {
      lazyConnect: false,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: true,
      commandTimeout: COMMAND_TIMEOUT_MS,
      keyPrefix: 'shelf:rl:',
    });
    client.defineCommand('rateLimitTake', { numberOfKeys: 1, lua: TAKE });
    // The client reconnects on its own; its errors are the outage, told by tryTake (not unhandled).
    client.on('error', () => undefined);
    return (this.connected = client);
  }

  async take(bucket: string, limit: number, weight: number, take: boolean): Promise<WindowRow> {
    const [allowed, used, resetAt, retryAfter] = (await (
      this.client as unknown as { rateLimitTake: (...a: unknown[]) => Promise<number[]> }
    ).rateLimitTake(bucket, limit, weight, take ? '1' : '0')) as [number, number, number, number];
    return { allowed: allowed === 1, used, reset_at: resetAt, retry_after: retryAfter };
  }

  /**
   * The take, or null when Redis cannot give it now: not connected (refusing, closing connections,
   * reconnecting, or connected but never ready), or no answer within COMMAND_TIMEOUT_MS. A request
   * never waits for Redis to come back; the caller keeps the window in PostgreSQL meanwhile.
   */
  async tryTake(bucket: string, limit: number, weight: number, take: boolean): Promise<WindowRow | null> {
    if (this.client.status !== 'ready' && !(await this.readySoon())) {
      this.down(`not connected (${this.client.status})`);
      return null;
    }
    try {
      const row = await this.take(bucket, limit, weight, take);
      this.up();
      return row;
    } catch (err) {
      this.down(err instanceof Error ? err.message : String(err));
      return null;
    }
  }

  /**
   * Whether a client that is not ready yet becomes ready within COMMAND_TIMEOUT_MS: waited for only
   * while no outage is known (a process's first requests, as the client connects), so windows do not
   * move to PostgreSQL for the few milliseconds of a start; during an outage the answer is no at once.
   */
  private readySoon(): Promise<boolean> {
    if (this.downSince !== null || this.client.status === 'end') return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (ready: boolean) => {
        clearTimeout(timer);
        this.client.off('ready', onReady).off('error', onFailed).off('close', onFailed);
        resolve(ready);
      };
      const onReady = () => done(true);
      const onFailed = () => done(false);
      const timer = setTimeout(onFailed, COMMAND_TIMEOUT_MS);
      this.client.once('ready', onReady).once('error', onFailed).once('close', onFailed);
    });
  }

  private down(reason: string) {
    if (this.downSince !== null) return;
    this.downSince = Date.now();
    this.logger?.warn(
      { reason },
      'Redis (REDIS_URL) unreachable: rate-limit windows are kept in PostgreSQL until it answers again',
    );
  }

  private up() {
    if (this.downSince === null) return;
    this.logger?.info(
      { downMs: Date.now() - this.downSince },
      'Redis (REDIS_URL) answers again: rate-limit windows back in Redis',
    );
    this.downSince = null;
  }

  async close(): Promise<void> {
    const client = this.connected;
    this.connected = undefined;
    await client?.quit().catch(() => client.disconnect());
  }
}
