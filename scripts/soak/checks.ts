// The soak's verdict, read from the database, the receiver's log and the Temporal server once the
// chaos is over. Each check counts its violations; any violation fails the soak.
import type { Client } from '@temporalio/client';
import type pg from 'pg';
import { ANALYSIS_WORKFLOW, BATCH_WORKFLOW } from '../../src/temporal/contracts/analysis.js';
import { WEBHOOK_DELIVERY_WORKFLOW } from '../../src/temporal/contracts/delivery.js';
import type { ImageKind, Receipt } from './stand-ins.js';
import { quantile } from '../lib/quantile.js';

export type CheckRow = { check: string; found: string; violations: number };

export type SoakFacts = {
  db: pg.Client;
  temporal: Client;
  organisationId: string;
  initialCredits: number;
  /** Analysis id → the kind of image it was given (what its outcome must be). */
  submitted: Map<string, ImageKind>;
  endpoints: number;
  /**
   * Products every completed analysis stores (the stand-in model sees the same shelf on every
   * photo), or null (the local recognizer reads each photo): then every analysis of one photo
   * (`photoOf`) stores the same number as the others of that photo.
   */
  productsPerAnalysis: number | null;
  photoOf: Map<string, string>;
  receipts: Receipt[];
};

/** What the deliveries' checks found besides their rows: the figures the sweep's table shows. */
export type DeliveryFigures = {
  /** POSTs of a delivery id already acknowledged (2xx) before: at-least-once, not a violation. */
  resends: number;
  /** How long each acknowledged delivery went unrecorded: the receiver's 2xx to our record (ms). */
  ackToRecordMs: { p50: number; p99: number; max: number; n: number };
  /** One line per resend, to tell what happened around it. */
  resendDetails: string[];
};

/**
 * The workflows the soak's work runs as. Others may run for good by design (an organisation's plan
 * period), so "nothing stuck" is asked of these.
 */
export const WORKLOAD = `WorkflowType IN ('${ANALYSIS_WORKFLOW}', '${BATCH_WORKFLOW}', '${WEBHOOK_DELIVERY_WORKFLOW}')`;

const count = async (temporal: Client, query: string) => (await temporal.workflow.count(query)).count;

export async function runChecks(
  f: SoakFacts,
): Promise<{ rows: CheckRow[]; deliveries: DeliveryFigures; details: string[] }> {
  const rows: CheckRow[] = [];
  const q = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    (await f.db.query<T>(text, values)).rows;

  const analyses = await q<{
    id: string;
    status: string;
    product_count: number | null;
    error_code: string | null;
    error_message: string | null;
  }>(`select id, status, product_count, error_code, error_message from analyses where organisation_id = $1`, [
    f.organisationId,
  ]);
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
  const wrong = analyses.filter((a) => {
    const kind = f.submitted.get(a.id);
    return (kind === 'ok' && a.status === 'failed') || (kind !== 'ok' && a.status === 'completed');
  });
  const wrongOutcome = wrong.length;
  const details = wrong.map(
    (a) =>
      `${a.id} (${f.submitted.get(a.id)} photo ${f.photoOf.get(a.id) ?? '?'}): ${a.status}` +
      (a.error_code ? `, ${a.error_code}: ${a.error_message ?? ''}` : ''),
  );
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
  // The local recognizer: each photo's analyses agree with the first completed analysis of it.
  const perPhoto = new Map<string, number>();
  if (f.productsPerAnalysis === null)
    for (const a of completed) {
      const photo = f.photoOf.get(a.id);
      if (photo !== undefined && !perPhoto.has(photo)) perPhoto.set(photo, productRows.get(a.id)?.n ?? 0);
    }
  const badSets = analyses.filter((a) => {
    const p = productRows.get(a.id);
    if (a.status !== 'completed') return p !== undefined;
    const expected = f.productsPerAnalysis ?? perPhoto.get(f.photoOf.get(a.id) ?? '') ?? -1;
    const n = p?.n ?? 0;
    return n !== expected || (p !== undefined && p.positions !== p.n) || a.product_count !== expected;
  }).length;
  const counts = [...perPhoto.values()];
  rows.push({
    check:
      f.productsPerAnalysis === null
        ? `one product set per analysis, the same for every analysis of a photo (${perPhoto.size} photos), none per failed`
        : `one product set per analysis (${f.productsPerAnalysis} products per completed, none per failed)`,
    found:
      `${products.reduce((s, p) => s + p.n, 0)} products` +
      (counts.length ? `; ${Math.min(...counts)}-${Math.max(...counts)} per photo` : ''),
    violations: badSets,
  });

  const receiver = receiverChecks(f.receipts, analyses, f.endpoints);
  rows.push(...receiver.rows);
  const { ackedAt, resends, resendDetails } = receiver;

  // How long a receiver's 2xx went unrecorded: its answer to the statement that recorded it
  // (completed_at is that statement's now()). A worker killed inside this window resends.
  const recorded = await q<{ id: string; completed_ms: number }>(
    `select id, (extract(epoch from completed_at) * 1000)::float8 as completed_ms
       from deliveries where organisation_id = $1 and status = 'succeeded'`,
    [f.organisationId],
  );
  const windows = recorded
    .filter((d) => ackedAt.has(d.id))
    .map((d) => d.completed_ms - ackedAt.get(d.id)!)
    .sort((x, y) => x - y);
  const ackToRecordMs = {
    p50: quantile(windows, 0.5, 0),
    p99: quantile(windows, 0.99, 0),
    max: windows.at(-1) ?? 0,
    n: windows.length,
  };
  rows.push({
    check: "a receiver's 2xx to our record of it (ms; a worker killed within it resends)",
    found: `p50 ${ackToRecordMs.p50.toFixed(1)}, p99 ${ackToRecordMs.p99.toFixed(1)}, max ${ackToRecordMs.max.toFixed(0)} (${ackToRecordMs.n})`,
    violations: 0,
  });
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
  return { rows, deliveries: { resends, ackToRecordMs, resendDetails }, details };
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

/**
 * The deliveries as the receiver saw them (its log, in arrival order), against the analyses' final
 * statuses.
 */
export function receiverChecks(
  receipts: Receipt[],
  analyses: { id: string; status: string }[],
  endpoints: number,
): { rows: CheckRow[]; ackedAt: Map<string, number>; resends: number; resendDetails: string[] } {
  const rows: CheckRow[] = [];
  const byId = new Map(analyses.map((a) => [a.id, a]));
  // Deliveries, as the receiver saw them. What would break a receiver that de-duplicates on
  // X-Service-Delivery is a violation: an (endpoint, event) never acknowledged (a lost event), one
  // sent under a second delivery id (the receiver would act on it twice), one id carried by two
  // events or endpoints (the receiver would drop one), or a body whose signed id is not the header's.
  // A delivery POSTed again under its id after its 2xx is at-least-once, which that receiver
  // absorbs: counted and reported (a worker killed between the receiver's answer and our record of it).
  const sentIds = new Map<string, Set<string>>();
  const ackedAt = new Map<string, number>();
  const idOwner = new Map<string, string>();
  const resendDetails: string[] = [];
  let resends = 0;
  let reused = 0;
  let mismatched = 0;
  let stray = 0;
  for (const r of receipts) {
    const a = byId.get(r.analysisId);
    if (!a || r.endpoint < 1 || r.endpoint > endpoints || r.event !== `analysis.${a.status}`) {
      stray++;
      continue;
    }
    if (r.bodyDeliveryId !== r.deliveryId) mismatched++;
    const key = `${r.endpoint} ${r.analysisId}`;
    const owner = idOwner.get(r.deliveryId);
    if (owner === undefined) idOwner.set(r.deliveryId, key);
    else if (owner !== key) reused++;
    sentIds.set(key, (sentIds.get(key) ?? new Set()).add(r.deliveryId));
    const acked = ackedAt.get(r.deliveryId);
    if (acked !== undefined) {
      resends++;
      resendDetails.push(
        `${r.deliveryId} (endpoint ${r.endpoint}, ${r.event}): acknowledged, then sent again ${((r.at - acked) / 1000).toFixed(1)} s later (answered ${r.status})`,
      );
    }
    if (r.status === 200 && acked === undefined) ackedAt.set(r.deliveryId, r.at);
  }
  let missing = 0;
  let secondId = 0;
  for (const a of analyses)
    for (let e = 1; e <= endpoints; e++) {
      const ids = sentIds.get(`${e} ${a.id}`);
      if (!ids || ![...ids].some((id) => ackedAt.has(id))) missing++;
      else if (ids.size > 1) secondId++;
    }
  const attempts = receipts.length;
  const refusals = receipts.filter((r) => r.status !== 200).length;
  rows.push({
    check: `every (endpoint, event) acknowledged (${endpoints} endpoints): none lost`,
    found: `${ackedAt.size} acknowledged of ${analyses.length * endpoints}; ${attempts} attempts, ${refusals} answered 500`,
    violations: missing,
  });
  rows.push({
    check: 'one delivery id per (endpoint, event), one (endpoint, event) per id, the signed id the header one',
    found: `${secondId} events with a second id, ${reused} ids reused, ${mismatched} bodies with another id`,
    violations: secondId + reused + mismatched,
  });
  rows.push({
    check: 'resends under the same delivery id after its 2xx (at-least-once: counted, not a violation)',
    found: `${resends}`,
    violations: 0,
  });
  rows.push({ check: 'no delivery of an unknown or wrong event', found: `${stray}`, violations: stray });
  return { rows, ackedAt, resends, resendDetails };
}
