import { Migration } from '@mikro-orm/migrations';

/**
 * Rate limits without a durable write per request. The sliding log (`rate_limit_hits`, one logged
 * insert and a WAL flush per request under an advisory lock) becomes one UNLOGGED row per bucket of
 * 61 one-second counters, read and updated by one function call: the row lock lasts one statement,
 * and commit needs no WAL flush. A hit made in second s counts while now - 60 <= s, i.e. for 60 to 61
 * seconds: never more than the limit in any rolling 60-second window, at worst refused 1 s longer.
 */
export class Migration20261123040000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop table if exists "rate_limit_hits" cascade;`);
    this.addSql(
      `create unlogged table "rate_limit_windows" ("bucket" text not null, "seconds" bigint[] not null, "counts" int[] not null, "touched_at" bigint not null, constraint "rate_limit_windows_pkey" primary key ("bucket"));`,
    );
    this.addSql(`
create or replace function rate_limit_take(p_bucket text, p_limit int, p_weight int, p_take boolean)
returns table (allowed boolean, used int, reset_at bigint, retry_after int)
language plpgsql as $fn$
declare
  now_ms bigint := floor(extract(epoch from clock_timestamp()) * 1000);
  now_s bigint := div(floor(extract(epoch from clock_timestamp()) * 1000), 1000);
  slot int;
  secs bigint[];
  cnts int[];
  total int;
  oldest bigint;
  need int;
  ok boolean;
  wait int := 0;
  r record;
begin
  now_s := now_ms / 1000;
  slot := (now_s % 61)::int + 1;
  if p_take then
    insert into rate_limit_windows (bucket, seconds, counts, touched_at)
      values (p_bucket, array_fill(0::bigint, array[61]), array_fill(0, array[61]), now_s)
      on conflict (bucket) do nothing;
    select w.seconds, w.counts into secs, cnts from rate_limit_windows w where w.bucket = p_bucket for update;
  else
    select w.seconds, w.counts into secs, cnts from rate_limit_windows w where w.bucket = p_bucket;
    secs := coalesce(secs, array_fill(0::bigint, array[61]));
    cnts := coalesce(cnts, array_fill(0, array[61]));
  end if;
  select coalesce(sum(u.c), 0)::int, min(u.s) into total, oldest
    from unnest(secs, cnts) as u(s, c) where u.s >= now_s - 60 and u.c > 0;
  ok := total + p_weight <= p_limit;
  if p_take and ok then
    cnts[slot] := (case when secs[slot] = now_s then cnts[slot] else 0 end) + p_weight;
    secs[slot] := now_s;
    update rate_limit_windows set seconds = secs, counts = cnts, touched_at = now_s where bucket = p_bucket;
    total := total + p_weight;
    oldest := least(coalesce(oldest, now_s), now_s);
  end if;
  if not ok then
    if p_weight > p_limit then
      wait := 60;
    else
      -- The oldest seconds leave first: wait until enough weight has left for this request to fit.
      need := total + p_weight - p_limit;
      for r in select u.s, u.c from unnest(secs, cnts) as u(s, c) where u.s >= now_s - 60 and u.c > 0 order by u.s loop
        need := need - r.c;
        if need <= 0 then
          wait := greatest(1, ceil(((r.s + 61) * 1000 - now_ms) / 1000.0)::int);
          exit;
        end if;
      end loop;
    end if;
  end if;
  return query select ok, total, coalesce(oldest, now_s) + 61, wait;
end
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists rate_limit_take(text, int, int, boolean);`);
    this.addSql(`drop table if exists "rate_limit_windows" cascade;`);
    this.addSql(
      `create table "rate_limit_hits" ("id" bigserial primary key, "bucket" varchar(255) not null, "at" timestamptz not null, "weight" int not null);`,
    );
    this.addSql(`create index "rate_limit_hits_bucket_at_index" on "rate_limit_hits" ("bucket", "at");`);
  }
}
