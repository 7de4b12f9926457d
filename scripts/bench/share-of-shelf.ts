// Benchmark: the 30-day share-of-shelf report over 1,000,000 product rows (BENCH_ROWS), through the
// service, median of 5 runs. Prints numbers; asserts nothing. Usage: DATABASE_URL=postgres://… npm run bench:reports
import { createRuntime } from '../../src/runtime.js';
import { createServices } from '../../src/services.js';
import { sql } from '../../src/db/sql.js';
import { benchEnvironment } from './setup.js';
import { toolSettings } from '../lib/tool-settings.js';

const ROWS = toolSettings().BENCH_ROWS;
const { devServer } = await benchEnvironment(7258);
const runtime = await createRuntime('bench', { LOG_LEVEL: 'silent' });
const em = runtime.orm.em.fork();
const services = createServices(em, { config: runtime.config });
const orgs = await Promise.all([1, 2, 3].map((i) => services.organisations.create({ name: `Bench ${i}` })));
const org = orgs[0]!;
const place = await services.places.create(org.id, { title: 'Store', countryCode: 'GB', channel: 'convenience' });

let t0 = performance.now();
// Rows spread over 3 organisations and 120 days, 40 brands; a third of them belong to the measured one.
await sql(
  em,
  `insert into products (id, organisation_id, analysis_id, place_id, position, brand, units, on_sale, confidence, confidence_score, match_status, category, created_at)
  select 'prd_bench' || g, (array[?, ?, ?])[1 + g % 3], 'an_bench' || (g / 20), ?, g, 'Brand ' || (g % 40), 1 + g % 6, false, 'high', 0.9, 'unmatched',
         'Category ' || (g % 7), now() - ((g % 120) || ' days')::interval - ((g % 86400) || ' seconds')::interval
    from generate_series(1, ?) g`,
  [orgs[0]!.id, orgs[1]!.id, orgs[2]!.id, place.id, ROWS],
);
await sql(em, 'analyze products');
const loadSeconds = (performance.now() - t0) / 1000;

const times: number[] = [];
let result;
for (let i = 0; i < 5; i++) {
  t0 = performance.now();
  result = await services.reports.shareOfShelf(org.id, { days: 30 });
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const filtered: number[] = [];
for (let i = 0; i < 5; i++) {
  t0 = performance.now();
  await services.reports.shareOfShelf(org.id, { days: 30, countries: ['GB'], channels: ['convenience'] });
  filtered.push(performance.now() - t0);
}
filtered.sort((a, b) => a - b);
console.log(
  JSON.stringify(
    {
      rows: ROWS,
      loadSeconds: Number(loadSeconds.toFixed(1)),
      brands: result!.brands.length,
      unitsIn30Days: result!.totalUnits,
      medianMs: Number(times[2]!.toFixed(1)),
      medianMsWithCountryAndChannel: Number(filtered[2]!.toFixed(1)),
    },
    null,
    2,
  ),
);
await runtime.close();
await devServer?.stop();
process.exit(0);
