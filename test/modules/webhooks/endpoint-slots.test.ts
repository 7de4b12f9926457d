import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EndpointSlots } from '../../../src/modules/webhooks/endpoint-slots.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('per-endpoint delivery slots (D344)', () => {
  it('a quick endpoint: deliveries past its share wait in line and get the slots in order as they free', async () => {
    const slots = new EndpointSlots(2, 10_000);
    const first = await slots.acquire('webhook:a');
    const second = await slots.acquire('webhook:a');
    assert.ok(first);
    assert.ok(second);
    const got: string[] = [];
    const third = slots.acquire('webhook:a').then((r) => (got.push('third'), r));
    const fourth = slots.acquire('webhook:a').then((r) => (got.push('fourth'), r));
    // Another endpoint is not in this one's line.
    assert.ok(await slots.acquire('webhook:b'));
    await sleep(5);
    assert.deepEqual(got, [], 'nobody gets a slot while both are held');
    first();
    const r3 = await third;
    assert.ok(r3);
    assert.deepEqual(got, ['third']);
    second();
    assert.ok(await fourth);
    assert.deepEqual(got, ['third', 'fourth']);
  });

  it('a wait in line that runs out answers busy (null), and the line forgets it', async () => {
    const slots = new EndpointSlots(1, 20);
    const held = await slots.acquire('webhook:a');
    assert.ok(held);
    assert.equal(await slots.acquire('webhook:a'), null);
    // The slot freed afterwards is not handed to the delivery that left the line.
    held();
    assert.ok(await slots.acquire('webhook:a'));
  });

  it('an endpoint whose attempt has been in flight longer than the line allows turns deliveries away at once', async () => {
    const slots = new EndpointSlots(2, 20);
    const first = await slots.acquire('webhook:hung');
    assert.ok(first);
    assert.ok(await slots.acquire('webhook:hung'));
    // In flight 60 ms: a place in line would be 30 ms away, past the 20 ms a delivery may wait.
    await sleep(60);
    const turnedAway = slots.acquire('webhook:hung');
    // Freed at once: had the delivery joined the line, this slot would have been handed to it.
    first();
    assert.equal(await turnedAway, null);
  });
});
