import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchedSlots } from '../../src/lib/batched-slots.js';

/** Lets every continuation already queued run (a waiter let go takes its slot in a later microtask). */
const settle = () => new Promise((r) => setImmediate(r));

describe('BatchedSlots', () => {
  it('once full, its waiters go on together when the work in flight has fallen to resumeAt, in arrival order', async () => {
    // The API's start bound (decisions.md, "Held submissions go on together"): let go one per start
    // finished, each held request's next one came alone and was committed alone.
    const slots = new BatchedSlots(4, 2);
    for (let i = 0; i < 4; i++) await slots.acquire();
    const through: string[] = [];
    const held = ['a', 'b', 'c'].map((name) => slots.acquire().then(() => through.push(name)));
    await settle();
    assert.deepEqual(through, []);
    assert.equal(slots.waiting, 3);

    slots.release(); // 3 in flight: above resumeAt, nobody goes on
    await settle();
    assert.deepEqual(through, []);

    slots.release(); // 2 in flight: up to max go on, together
    await settle();
    assert.deepEqual(through, ['a', 'b']);
    assert.equal(slots.inFlight, 4);
    assert.equal(slots.waiting, 1);

    for (let i = 0; i < 2; i++) slots.release();
    await Promise.all(held);
    assert.deepEqual(through, ['a', 'b', 'c']);
    assert.equal(slots.inFlight, 3);
  });

  it('a caller arriving while others wait goes behind them, even with a slot free', async () => {
    const slots = new BatchedSlots(2, 0);
    await slots.acquire();
    await slots.acquire();
    const through: string[] = [];
    const first = slots.acquire().then(() => through.push('first'));
    slots.release(); // 1 in flight, above resumeAt 0: a slot is free, the waiter stays
    const late = slots.acquire().then(() => through.push('late'));
    await settle();
    assert.deepEqual(through, []);
    slots.release();
    await Promise.all([first, late]);
    assert.deepEqual(through, ['first', 'late']);
  });

  it('below its bound, nobody waits', async () => {
    const slots = new BatchedSlots(3, 1);
    await Promise.all([slots.acquire(), slots.acquire(), slots.acquire()]);
    assert.equal(slots.inFlight, 3);
    assert.throws(() => new BatchedSlots(2, 2), /resumeAt/);
  });
});
