// Benchmark: what auth + rate limiting + idempotency add to a read. The same GET /places handler
// served twice: through the full API pipeline, and bare (fixed tenant, no middleware), at a fixed
// request rate. Prints median and p99 latency of each; asserts nothing.
// Usage: DATABASE_URL=postgres://… npm run bench:overhead   (BENCH_RATE per second, BENCH_SECONDS)
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { RequestContext } from '@mikro-orm/core';
import Koa from 'koa';
import { createApp } from '../../src/http/app.js';
import { placeRoutes } from '../../src/modules/places/place.routes.js';
import { createRuntime } from '../../src/runtime.js';
import { createServices } from '../../src/services.js';
import { benchEnvironment } from './setup.js';
import { toolSettings } from '../lib/tool-settings.js';
import { quantile } from '../lib/quantile.js';

const RATE = toolSettings().BENCH_RATE;
const SECONDS = toolSettings().BENCH_SECONDS;

const { devServer } = await benchEnvironment(7257);

const runtime = await createRuntime('bench', { LOG_LEVEL: 'silent', DATABASE_POOL_MAX: 20 });
const services = createServices(runtime.orm.em.fork(), { config: runtime.config });
const org = await services.organisations.create({
  name: 'Bench',
  plan: 'enterprise',
  customLimits: { rateLimits: { reads: 1_000_000 } },
});
const { secret } = await services.apiKeys.create(org.id, 'read', 'bench');
for (let i = 0; i < 30; i++) await services.places.create(org.id, { title: `Store ${i}`, countryCode: 'GB' });

const { app } = createApp(runtime);
const full = app.listen(0, '127.0.0.1');

// The bare server: the same route handler and envelope, a fixed tenant, nothing in front.
const bare = new Koa();
const router = new Router();
const list = placeRoutes(runtime.services.places).find((r) => r.operationId === 'listPlaces')!;
const auth = {
  organisationId: org.id,
  actorId: 'bench',
  role: 'read' as const,
  plan: 'enterprise' as const,
  customLimits: null,
  session: null,
};
router.get('/api/v1/places', async (ctx) => {
  const result = await list.handler({
    params: undefined,
    query: list.query!.parse(ctx.query),
    body: undefined,
    auth,
    ctx,
  } as never);
  ctx.body = result.body;
});
bare.use((ctx, next) => RequestContext.create(runtime.orm.em, next));
bare.use(router.routes());
const bareServer = bare.listen(0, '127.0.0.1');
await new Promise((r) => setTimeout(r, 200));

async function measure(port: number, headers: Record<string, string>) {
  const url = `http://127.0.0.1:${port}/api/v1/places?limit=25`;
  for (let i = 0; i < 50; i++) await (await fetch(url, { headers })).arrayBuffer();
  const latencies: number[] = [];
  const total = RATE * SECONDS;
  const started = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inflight.push(
      (async () => {
        const t = performance.now();
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`status ${res.status}`);
        latencies.push(performance.now() - t);
      })(),
    );
  }
  await Promise.all(inflight);
  const at = (p: number) => Number(quantile(latencies, p).toFixed(2));
  return { requests: total, p50Ms: at(0.5), p99Ms: at(0.99) };
}

const without = await measure((bareServer.address() as AddressInfo).port, {});
const withPipeline = await measure((full.address() as AddressInfo).port, { authorization: `Bearer ${secret}` });
console.log(
  JSON.stringify(
    {
      ratePerSecond: RATE,
      seconds: SECONDS,
      bare: without,
      fullPipeline: withPipeline,
      addedP50Ms: Number((withPipeline.p50Ms - without.p50Ms).toFixed(2)),
      addedP99Ms: Number((withPipeline.p99Ms - without.p99Ms).toFixed(2)),
    },
    null,
    2,
  ),
);
full.close();
bareServer.close();
await runtime.close();
await devServer?.stop();
process.exit(0);
