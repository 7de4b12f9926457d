import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { centsToString, lineAmounts, toScaled } from '../../../src/modules/orders/money.js';

describe('order money', () => {
  it('computes line tax half up to the cent, with no float error', () => {
    // 3 × 0.35 = 1.05; tax 7.5% = 0.07875 -> 0.08
    const a = lineAmounts(3, 0.35, 7.5);
    assert.deepEqual([centsToString(a.net), centsToString(a.tax), centsToString(a.total)], ['1.05', '0.08', '1.13']);
    // 1 × 0.10 at 5% = 0.005 exactly -> 0.01 (half up), where float arithmetic gives 0.005000000000000001 or 0.0049999
    const b = lineAmounts(1, 0.1, 5);
    assert.equal(centsToString(b.tax), '0.01');
    // 2.5 × 19.99 at 20% = 49.975 net -> 49.98; tax 9.995 -> 10.00
    const c = lineAmounts(2.5, 19.99, 20);
    assert.deepEqual([centsToString(c.net), centsToString(c.tax), centsToString(c.total)], ['49.98', '10.00', '59.98']);
    assert.equal(centsToString(lineAmounts(1, 0.1, 0).tax), '0.00');
    assert.equal(toScaled('12.5', 2), 1250n);
  });
});
