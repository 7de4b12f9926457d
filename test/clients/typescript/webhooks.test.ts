import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyWebhookSignature, WebhookSignatureError } from '../../../clients/typescript/src/webhooks.js';
import { signatureHeader } from '../../../src/modules/webhooks/signature.js';

// Signed by the service's own signing code (src/modules/webhooks/signature.ts), as deliveries are.
const secret = `whsec_${'a'.repeat(64)}`;
const previous = `whsec_${'b'.repeat(64)}`;
const body = JSON.stringify({
  event: 'analysis.completed',
  data: { id: 'an_1', status: 'completed' },
  timestamp: '2026-11-23T10:00:00.000Z',
  webhookId: 'wh_1',
  deliveryId: 'dlv_1',
});
// Signed now (each test takes its own: files in a shared test process may start long after loading).
const unixNow = () => Math.floor(Date.now() / 1000);

describe('the TypeScript client: verifyWebhookSignature', () => {
  it('accepts the header from Fetch Headers, Node headers (any case) or as a string, and returns the event', () => {
    const t = unixNow();
    const header = signatureHeader([secret], t, body);
    const headers = { 'X-Service-Signature': header, 'X-Service-Delivery': 'dlv_1' };
    const event = verifyWebhookSignature(body, new Headers(headers), secret);
    assert.deepEqual(event, JSON.parse(body));
    assert.equal(verifyWebhookSignature(body, headers, secret).data.id, 'an_1');
    assert.equal(
      verifyWebhookSignature(
        Buffer.from(body),
        { 'x-service-signature': header, 'x-service-delivery': 'dlv_1' },
        secret,
      ).event,
      'analysis.completed',
    );
    assert.equal(verifyWebhookSignature(new TextEncoder().encode(body), header, [previous, secret]).webhookId, 'wh_1');
  });

  it('returns the signed delivery id and refuses the delivery under another X-Service-Delivery (issue 36)', () => {
    const t = unixNow();
    const header = signatureHeader([secret], t, body);
    const genuine = { 'x-service-signature': header, 'x-service-delivery': 'dlv_1' };
    assert.equal(verifyWebhookSignature(body, genuine, secret).deliveryId, 'dlv_1');
    assert.equal(verifyWebhookSignature(body, new Headers(genuine), secret).deliveryId, 'dlv_1');
    assert.equal(verifyWebhookSignature(body, header, secret).deliveryId, 'dlv_1', 'the signed id, from the body');
    // A captured delivery replayed within the tolerance under a new id, or with the header left out.
    for (const replayed of [{ ...genuine, 'x-service-delivery': 'dlv_2' }, { 'x-service-signature': header }])
      assert.throws(() => verifyWebhookSignature(body, replayed, secret), /not the signed delivery id/);
    assert.throws(
      () =>
        verifyWebhookSignature(body.replace('dlv_1', 'dlv_2'), { ...genuine, 'x-service-delivery': 'dlv_2' }, secret),
      /No signature matches/,
    );
    // A signed body without an id (as bodies were before): nothing to de-duplicate on, refused.
    const bare = JSON.stringify({ ...JSON.parse(body), deliveryId: undefined });
    assert.throws(
      () => verifyWebhookSignature(bare, signatureHeader([secret], t, bare), secret),
      /carries no deliveryId/,
    );
  });

  it('checks the raw bytes: re-serialised, tampered or differently spaced bodies fail', () => {
    const t = unixNow();
    const header = signatureHeader([secret], t, body);
    assert.throws(
      () => verifyWebhookSignature(JSON.stringify(JSON.parse(body), null, 2), header, secret),
      WebhookSignatureError,
    );
    assert.throws(() => verifyWebhookSignature(body.replace('an_1', 'an_2'), header, secret), /No signature matches/);
  });

  it('during a rotation either secret verifies the two-signature header; a third does not', () => {
    const t = unixNow();
    const header = signatureHeader([secret, previous], t, body);
    assert.equal(header.split(',').length, 3);
    assert.ok(verifyWebhookSignature(body, header, secret));
    assert.ok(verifyWebhookSignature(body, header, previous));
    assert.throws(() => verifyWebhookSignature(body, header, `whsec_${'c'.repeat(64)}`), /No signature matches/);
  });

  it('refuses a timestamp outside the tolerance, either way, and honours toleranceSec', () => {
    const t = unixNow();
    // `now` pinned to t: the checks do not depend on how long the tests before took.
    const now = new Date(t * 1000);
    const old = signatureHeader([secret], t - 301, body);
    assert.throws(() => verifyWebhookSignature(body, old, secret, { now }), /tolerance/);
    assert.ok(verifyWebhookSignature(body, old, secret, { now, toleranceSec: 600 }));
    const ahead = signatureHeader([secret], t + 301, body);
    assert.throws(() => verifyWebhookSignature(body, ahead, secret, { now }), /tolerance/);
    assert.ok(verifyWebhookSignature(body, signatureHeader([secret], t - 300, body), secret, { now }));
    assert.ok(verifyWebhookSignature(body, old, secret, { now: new Date((t - 301) * 1000) }));
  });

  it('refuses a missing or malformed header', () => {
    const t = unixNow();
    assert.throws(() => verifyWebhookSignature(body, {}, secret), /Missing/);
    assert.throws(() => verifyWebhookSignature(body, new Headers(), secret), /Missing/);
    assert.throws(() => verifyWebhookSignature(body, `v1=${'0'.repeat(64)}`, secret), /Malformed/);
    assert.throws(() => verifyWebhookSignature(body, `t=${t},v1=nothex`, secret), /Malformed/);
  });
});
