import { Migration } from '@mikro-orm/migrations';

/**
 * The request gate checks the client address's failed-authentication budget first (issue 36): an
 * address past it is refused before its key is looked up or a window is taken. The check is a read
 * of the address's window (no lock, no write) in the same call as the key lookup and the take, so a
 * request still costs one round trip. `p_address_bucket` null skips it. `p_weight` 0 looks the key
 * up and takes nothing (a batch's weight is in its body, which is read only once its caller is known).
 * A refused address is one row with `address_refused` and its window's numbers; no row still means no
 * such active key. The four-argument form stays for API processes of the release before, still
 * running while this one rolls out.
 */
export class Migration20261126100000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function api_key_take(p_key_hash text, p_category text, p_weight int, p_plan_limits jsonb,
                                        p_address_bucket text, p_address_limit int)
returns table (api_key_id text, organisation_id text, role text, plan text, custom_limits jsonb, rate_limit int,
               allowed boolean, used int, reset_at bigint, retry_after int, address_refused boolean)
language plpgsql as $fn$
declare
  a record;
  k record;
  lim int;
begin
  if p_address_bucket is not null then
    -- Would one more failure fit? If not, the address is past its budget whatever key it sends.
    select * into a from rate_limit_take(p_address_bucket, p_address_limit, 1, false);
    if not a.allowed then
      return query select null::text, null::text, null::text, null::text, null::jsonb, p_address_limit,
                          false, a.used, a.reset_at, a.retry_after, true;
      return;
    end if;
  end if;
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
    select k.id::text, k.organisation_id::text, k.role::text, k.plan::text, k.custom_limits, lim, t.allowed, t.used,
           t.reset_at, t.retry_after, false
      from rate_limit_take('key:' || k.id || ':' || p_category, lim, p_weight, p_weight > 0) t;
end
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists api_key_take(text, text, int, jsonb, text, int);`);
  }
}
