// The read ceiling for `npm run bench:api`: bare Koa and one pooled `pg` query for the same page of
// analyses the API serves (same columns, same keyset order, same envelope), a fixed tenant, nothing
// else in front. Run as its own process, like the API, so both get the same CPU.
import { createServer } from 'node:http';
import Koa from 'koa';
import pg from 'pg';
import { toolSettings } from '../lib/tool-settings.js';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_MAX ?? 10),
});
const organisationId = toolSettings().BENCH_ORG_ID!;
const app = new Koa();
app.use(async (ctx) => {
  const limit = Math.min(100, Number(ctx.query.limit ?? 20));
  const { rows } = await pool.query(
    `select id, status, total_runs, completed_runs, failed_runs, created_at, external_id, metadata, place_id, task_id, completed_at
       from analyses where organisation_id = $1 order by id desc limit $2`,
    [organisationId, limit + 1],
  );
  const page = rows.slice(0, limit);
  ctx.body = {
    data: page.map((a) => ({
      id: a.id,
      status: a.status,
      totalRuns: a.total_runs,
      completedRuns: a.completed_runs,
      failedRuns: a.failed_runs,
      createdAt: a.created_at.toISOString(),
      externalId: a.external_id,
      metadata: a.metadata,
      placeId: a.place_id,
      taskId: a.task_id,
      completedAt: a.completed_at ? a.completed_at.toISOString() : null,
    })),
    pagination: { cursor: rows.length > limit ? page[page.length - 1].id : null, hasMore: rows.length > limit },
  };
});
const server = createServer(app.callback()).listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
