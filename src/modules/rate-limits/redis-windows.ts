import { Redis } from 'ioredis';

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

export class RedisWindows {
  private readonly client: Redis;

  constructor(url: string) {
    // Fail a request fast (503 via the error handler) rather than queue it while Redis is away.
    this.client = new Redis(url, {
      lazyConnect: false,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: true,
      keyPrefix: 'shelf:rl:',
    });
    this.client.defineCommand('rateLimitTake', { numberOfKeys: 1, lua: TAKE });
  }

  async take(bucket: string, limit: number, weight: number, take: boolean): Promise<WindowRow> {
    const [allowed, used, resetAt, retryAfter] = (await (
      this.client as unknown as { rateLimitTake: (...a: unknown[]) => Promise<number[]> }
    ).rateLimitTake(bucket, limit, weight, take ? '1' : '0')) as [number, number, number, number];
    return { allowed: allowed === 1, used, reset_at: resetAt, retry_after: retryAfter };
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

const shared = new Map<string, RedisWindows>();

/** One client per process and URL, however many service graphs are built. */
export function redisWindows(url: string): RedisWindows {
  let windows = shared.get(url);
  if (!windows) shared.set(url, (windows = new RedisWindows(url)));
  return windows;
}

export async function closeRedisWindows(): Promise<void> {
  await Promise.all([...shared.values()].map((w) => w.close()));
  shared.clear();
}
