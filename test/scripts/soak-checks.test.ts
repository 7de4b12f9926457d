import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { receiverChecks } from '../../scripts/soak/checks.js';
import type { Receipt } from '../../scripts/soak/stand-ins.js';

const analyses = [
  { id: 'ana_1', status: 'completed' },
  { id: 'ana_2', status: 'failed' },
];

let clock = 0;
function receipt(endpoint: number, analysisId: string, deliveryId: string, status = 200): Receipt {
  const event = `analysis.${analyses.find((a) => a.id === analysisId)!.status}`;
  return { endpoint, deliveryId, bodyDeliveryId: deliveryId, event, analysisId, status, at: (clock += 1000) };
}

/** Every (endpoint, analysis) acknowledged once, each under its own id: what the soak expects. */
const clean = (): Receipt[] => [
  receipt(1, 'ana_1', 'dlv_a'),
  receipt(2, 'ana_1', 'dlv_b', 500),
  receipt(2, 'ana_1', 'dlv_b'),
  receipt(1, 'ana_2', 'dlv_c'),
  receipt(2, 'ana_2', 'dlv_d'),
];

const violations = (receipts: Receipt[]) =>
  receiverChecks(receipts, analyses, 2).rows.reduce((sum, row) => sum + row.violations, 0);

describe("the soak's verdict on what the receiver saw", () => {
  it('finds nothing wrong when each event is acknowledged once under its one id', () => {
    const result = receiverChecks(clean(), analyses, 2);
    assert.equal(violations(clean()), 0);
    assert.equal(result.resends, 0);
    assert.equal(result.ackedAt.size, 4);
  });

  it('counts a resend under the same delivery id after its 2xx, and does not call it a violation', () => {
    const receipts = [...clean(), receipt(1, 'ana_1', 'dlv_a'), receipt(2, 'ana_2', 'dlv_d', 500)];
    const result = receiverChecks(receipts, analyses, 2);
    assert.equal(result.resends, 2);
    assert.equal(result.resendDetails.length, 2);
    assert.match(result.resendDetails[0]!, /^dlv_a \(endpoint 1, analysis\.completed\): acknowledged, then sent again/);
    assert.equal(violations(receipts), 0);
  });

  it('calls a second delivery id for one event a violation (a receiver would act on it twice)', () => {
    assert.equal(violations([...clean(), receipt(1, 'ana_1', 'dlv_e')]), 1);
  });

  it('calls a lost event a violation', () => {
    assert.equal(violations(clean().filter((r) => r.deliveryId !== 'dlv_c')), 1);
    // Sent but never acknowledged is lost too.
    assert.equal(
      violations([...clean().filter((r) => r.deliveryId !== 'dlv_c'), receipt(1, 'ana_2', 'dlv_c', 500)]),
      1,
    );
  });

  it('calls one id carried by two events, or a body signing another id than its header, a violation', () => {
    const reused = clean().map((r) =>
      r.deliveryId === 'dlv_d' ? { ...r, deliveryId: 'dlv_c', bodyDeliveryId: 'dlv_c' } : r,
    );
    assert.ok(violations(reused) >= 1);
    const mismatched = clean().map((r) => (r.deliveryId === 'dlv_a' ? { ...r, bodyDeliveryId: 'dlv_z' } : r));
    assert.equal(violations(mismatched), 1);
  });

  it('calls a delivery of an event the analysis did not have a violation', () => {
    assert.equal(violations([...clean(), { ...receipt(1, 'ana_1', 'dlv_x'), event: 'analysis.failed' }]), 1);
  });
});
