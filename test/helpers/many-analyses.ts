import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedSql } from '../../src/db/sql.js';
import { idAt } from '../../src/lib/ids.js';

/**
 * `count` finished analyses of one organisation, a minute apart and ending now, every tenth failed,
 * external ids `visit-1`…, in one statement (bound as arrays): the "10,000 analyses" of issue 37's
 * list-speed point, for the console's browser test and `npm run bench:console`. Marked started: a
 * row without workflow_started_at is a stranded commit, and every relay on the database would try
 * to start a workflow for each. Returns the rows' creation times, oldest first.
 */
export async function seedAnalyses(em: EntityManager, organisationId: string, count: number): Promise<string[]> {
  const start = Date.now() - count * 60_000;
  const rows = Array.from({ length: count }, (_, i) => ({
    id: idAt('analysis', new Date(start + i * 60_000)).replace(/0{6}$/, String(i).padStart(6, '0')),
    status: i % 10 === 0 ? 'failed' : 'completed',
    at: new Date(start + i * 60_000).toISOString(),
  }));
  await preparedSql(
    em,
    `insert into analyses (id, organisation_id, created_at, updated_at, image_url, total_runs, total_value, status, completed_at, external_id, workflow_started_at)
     select r.id, ?, r.at::timestamptz, r.at::timestamptz, 'https://images.example.com/' || r.n || '.jpg', 1, 0, r.status, r.at::timestamptz, 'visit-' || r.n, r.at::timestamptz
       from unnest(?::text[], ?::text[], ?::text[]) with ordinality as r(id, status, at, n)`,
    [organisationId, rows.map((r) => r.id), rows.map((r) => r.status), rows.map((r) => r.at)],
  );
  return rows.map((r) => r.at);
}
