import { Migration } from '@mikro-orm/migrations';

/**
 * The request gate in one round trip: find the key's owner and take its rate-limit slots in the
 * same call (PostgreSQL store). The plan table's limits are passed in as JSON so they stay defined
 * once, in plans.ts. No row back means no such active key.
 */
export class Migration20261123041500 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function api_key_take(p_key_hash text, p_category text, p_weight int, p_plan_limits jsonb)
returns table (api_key_id text, organisation_id text, role text, plan text, custom_limits jsonb, rate_limit int, allowed boolean, used int, reset_at bigint, retry_after int)
language plpgsql as $fn$
declare
  k record;
  lim int;
begin
  select ak.id, ak.organisation_id, ak.role, o.plan, o.custom_limits into k
    from api_keys ak join organisations o on o.id = ak.organisation_id
   where ak.key_hash = p_key_hash and ak.revoked_at is null and (ak.expires_at is null or ak.expires_at > now());
  if not found then
    return;
  end if;
  -- limitsFor(): an enterprise organisation's custom limit wins over its plan's.
  lim := coalesce(
    case when k.plan = 'enterprise' then (k.custom_limits -> 'rateLimits' ->> p_category)::int end,
    (p_plan_limits -> k.plan ->> p_category)::int
  );
  return query
    select k.id::text, k.organisation_id::text, k.role::text, k.plan::text, k.custom_limits, lim, t.allowed, t.used, t.reset_at, t.retry_after
      from rate_limit_take('key:' || k.id || ':' || p_category, lim, p_weight, true) t;
end
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists api_key_take(text, text, int, jsonb);`);
  }
}
