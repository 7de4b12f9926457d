// The soak's verdict, read from the database, the receiver's log and the Temporal server once the
// chaos is over. Each check counts its violations; any violation fails the soak.
import type { Client } from '@temporalio/client';
import type pg from 'pg';
import { ANALYSIS_WORKFLOW, BATCH_WORKFLOW } from '../../src/temporal/contracts/analysis.js';
import { WEBHOOK_DELIVERY_WORKFLOW } from '../../src/temporal/contracts/delivery.js';
import type { ImageKind, Receipt } from './stand-ins.js';

export type CheckRow = { check: string; found: string; violations: number };

export type SoakFacts = {
  db: pg.Client;
  temporal: Client;
  organisationId: string;
  initialCredits: number;
  /** Analysis id → the kind of image it was given (what its outcome must be). */
  submitted: Map<string, ImageKind>;
  endpoints: number;
  productsPerAnalysis: number;
  receipts: Receipt[];
};

/**
 * The workflows the soak's work runs as. Others may run for good by design (an organisation's plan
 * period), so "nothing stuck" is asked of these.
 */
export const WORKLOAD = `WorkflowType IN ('${ANALYSIS_WORKFLOW}', '${BATCH_WORKFLOW}', '${WEBHOOK_DELIVERY_WORKFLOW}')`;

const count = async (temporal: Client, query: string) => (await temporal.workflow.count(query)).count;

export async function runChecks(f: SoakFacts): Promise<CheckRow[]> {
  const rows: CheckRow[] = [];
  const q = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    (await f.db.query<T>(text, values)).rows;

  const analyses = await q<{ id: string; status: string; product_count: number | null }>(
    `select id, status, product_count from analyses where organisation_id = $1`,
    [f.organisationId],
  );
  const byId = new Map(analyses.map((a) => [a.id, a]));
  const unknown = analyses.filter((a) => !f.submitted.has(a.id)).length;
  const lost = [...f.submitted.keys()].filter((id) => !byId.has(id)).length;
  rows.push({
    check: 'analyses stored = analyses submitted (none twice, none lost)',
    found: `${analyses.length} stored, ${f.submitted.size} submitted`,
    violations: unknown + lost,
  });

  const processing = analyses.filter((a) => a.status === 'processing').length;
  const completed = analyses.filter((a) => a.status === 'completed');
  const failed = analyses.filter((a) => a.status === 'failed');
  rows.push({
    check: 'every analysis final',
    found: `${completed.length} completed, ${failed.length} failed, ${processing} processing`,
    violations: processing,
  });
  const wrongOutcome = analyses.filter((a) => {
    const kind = f.submitted.get(a.id);
    return (kind === 'ok' && a.status === 'failed') || (kind !== 'ok' && a.status === 'completed');
  }).length;
  rows.push({
    check: 'outcome as the photo says (served: completed; 404 or not an image: failed)',
    found: `${wrongOutcome} otherwise`,
    violations: wrongOutcome,
  });

  const entries = await q<{ analysis_id: string; charges: number; refunds: number }>(
    `select analysis_id, count(*) filter (where reason = 'analysis')::int as charges,
            count(*) filter (where reason = 'refund')::int as refunds
       from credit_entries where organisation_id = $1 and analysis_id is not null group by analysis_id`,
    [f.organisationId],
  );
  const ledger = new Map(entries.map((e) => [e.analysis_id, e]));
  const chargedWrong = analyses.filter((a) => ledger.get(a.id)?.charges !== 1).length;
  rows.push({
    check: 'one charge per analysis',
    found: `${entries.reduce((s, e) => s + e.charges, 0)} charges`,
    violations: chargedWrong,
  });
  const refundWrong = analyses.filter((a) => {
    const refunds = ledger.get(a.id)?.refunds ?? 0;
    return a.status === 'failed' ? refunds !== 1 : refunds !== 0;
  }).length;
  rows.push({
    check: 'one refund per failed analysis, none per completed one',
    found: `${entries.reduce((s, e) => s + e.refunds, 0)} refunds`,
    violations: refundWrong,
  });
  const [sums] = await q<{ ledger: number; balance: number }>(
    `select (select coalesce(sum(plan_delta + payg_delta), 0)::int from credit_entries where organisation_id = $1) as ledger,
            (select plan_credits + payg_credits from organisations where id = $1) as balance`,
    [f.organisationId],
  );
  const expected = f.initialCredits - completed.length;
  rows.push({
    check: 'ledger sums to the balance = initial − completed',
    found: `ledger ${sums!.ledger}, balance ${sums!.balance}, expected ${expected}`,
    violations: Number(sums!.ledger !== sums!.balance) + Number(sums!.balance !== expected),
  });

  const products = await q<{ analysis_id: string; n: number; positions: number }>(
    `select p.analysis_id, count(*)::int as n, count(distinct p.position)::int as positions
       from products p join analyses a on a.id = p.analysis_id where a.organisation_id = $1 group by p.analysis_id`,
    [f.organisationId],
  );
  const productRows = new Map(products.map((p) => [p.analysis_id, p]));
  const badSets = analyses.filter((a) => {
    const p = productRows.get(a.id);
    if (a.status !== 'completed') return p !== undefined;
    return !p || p.n !== f.productsPerAnalysis || p.positions !== p.n || a.product_count !== f.productsPerAnalysis;
  }).length;
  rows.push({
    check: `one product set per analysis (${f.productsPerAnalysis} products per completed, none per failed)`,
    found: `${products.reduce((s, p) => s + p.n, 0)} products`,
    violations: badSets,
  });

  // Deliveries, as the receiver saw them. Exactly once: per (endpoint, event) one delivery id was
  // acknowledged (2xx), and no acknowledged delivery came again.
  const acked = new Map<string, Set<string>>();
  const ackedIds = new Set<string>();
  let reAcked = 0;
  let stray = 0;
  for (const r of f.receipts) {
    const a = byId.get(r.analysisId);
    if (!a || r.endpoint < 1 || r.endpoint > f.endpoints || r.event !== `analysis.${a.status}`) {
      stray++;
      continue;
    }
    if (r.status !== 200) continue;
    if (ackedIds.has(r.deliveryId)) reAcked++;
    ackedIds.add(r.deliveryId);
    const key = `${r.endpoint} ${r.analysisId}`;
    acked.set(key, (acked.get(key) ?? new Set()).add(r.deliveryId));
  }
  let missing = 0;
  let twice = 0;
  for (const a of analyses)
    for (let e = 1; e <= f.endpoints; e++) {
      const ids = acked.get(`${e} ${a.id}`);
      if (!ids) missing++;
      else if (ids.size > 1) twice++;
    }
  const attempts = f.receipts.length;
  const refusals = f.receipts.filter((r) => r.status !== 200).length;
  rows.push({
    check: `every (endpoint, event) acknowledged, by one delivery id (${f.endpoints} endpoints)`,
    found: `${ackedIds.size} acknowledged of ${analyses.length * f.endpoints}; ${attempts} attempts, ${refusals} answered 500`,
    violations: missing + twice,
  });
  rows.push({
    check: 'no acknowledged delivery delivered again',
    found: `${reAcked} redelivered after a 2xx`,
    violations: reAcked,
  });
  rows.push({ check: 'no delivery of an unknown or wrong event', found: `${stray}`, violations: stray });
  const [deliveries] = await q<{ n: number; succeeded: number }>(
    `select count(*)::int as n, count(*) filter (where status = 'succeeded')::int as succeeded
       from deliveries where organisation_id = $1`,
    [f.organisationId],
  );
  rows.push({
    check: 'deliveries recorded succeeded',
    found: `${deliveries!.succeeded} of ${deliveries!.n}`,
    violations: deliveries!.n - deliveries!.succeeded + Math.abs(deliveries!.n - analyses.length * f.endpoints),
  });

  const running = await count(f.temporal, `ExecutionStatus = "Running" AND ${WORKLOAD}`);
  rows.push({
    check: 'no analysis, batch or delivery workflow still running',
    found: `${running} running`,
    violations: running,
  });
  const ended = await count(
    f.temporal,
    'ExecutionStatus = "Failed" OR ExecutionStatus = "Terminated" OR ExecutionStatus = "TimedOut"',
  );
  const attention = await count(f.temporal, 'EntityStatus = "needs_attention"');
  const total = await count(f.temporal, 'ExecutionStatus = "Completed"');
  rows.push({
    check: 'no workflow failed, timed out or needing an operator',
    found: `${total} completed, ${ended} failed/terminated/timed out, ${attention} needs_attention`,
    violations: ended + attention,
  });
  return rows;
}

export function printTable(rows: CheckRow[]): void {
  const w = Math.max(...rows.map((r) => r.check.length));
  const f = Math.max(...rows.map((r) => r.found.length));
  const line = `+${'-'.repeat(w + 2)}+${'-'.repeat(f + 2)}+------------+`;
  console.log(line);
  console.log(`| ${'check'.padEnd(w)} | ${'found'.padEnd(f)} | violations |`);
  console.log(line);
  for (const r of rows)
    console.log(`| ${r.check.padEnd(w)} | ${r.found.padEnd(f)} | ${String(r.violations).padStart(10)} |`);
  console.log(line);
}
